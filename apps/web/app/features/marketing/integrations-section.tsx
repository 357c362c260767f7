import { SectionHeading } from "../../components/section-heading";
import { INTEGRATIONS } from "./marketing-data";

export function IntegrationsSection() {
  return (
    <section
      id="integrations"
      aria-labelledby="integrations-title"
      className="below-fold [--fold-height:82rem] md:[--fold-height:55rem] lg:[--fold-height:41rem] border-y border-border bg-bg-subtle"
    >
      <div className="mx-auto max-w-7xl px-4 py-24 sm:px-6 lg:px-8">
        <SectionHeading
          id="integrations-title"
          eyebrow="Integrations"
          title="Works with the tools you already run"
          lead="Bring your own executors, editor and team tools. Flotilla connects them around the task."
        />
        <ul className="mt-14 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {INTEGRATIONS.map((integration) => (
            <li key={integration.name} className="rounded-xl border border-border bg-bg-elevated px-5 py-4">
              <p className="font-medium">{integration.name}</p>
              <p className="mt-1 text-sm text-fg-muted">{integration.detail}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
