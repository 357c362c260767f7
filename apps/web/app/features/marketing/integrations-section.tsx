import { SectionHeading } from "../../components/section-heading";
import { INTEGRATION_GROUPS, type Integration } from "./marketing-data";

const GRID_COLUMNS = [
  "grid-cols-2 md:grid-cols-3 lg:grid-cols-5",
  "grid-cols-2 sm:grid-cols-3 lg:grid-cols-1 xl:grid-cols-3",
] as const;

function IntegrationList({ items, columns }: { items: readonly Integration[]; columns: string }) {
  return (
    <ul className={`mt-4 grid gap-3 sm:gap-4 ${columns}`}>
      {items.map((integration) => (
        <li key={integration.name} className="rounded-xl border border-border bg-bg-elevated px-4 py-3 sm:px-5 sm:py-4">
          <p className="font-medium">{integration.name}</p>
          <p className="mt-1 text-sm text-fg-muted">{integration.detail}</p>
        </li>
      ))}
    </ul>
  );
}

export function IntegrationsSection() {
  const [executors, ...others] = INTEGRATION_GROUPS;
  return (
    <section
      id="integrations"
      aria-labelledby="integrations-title"
      className="below-fold [--fold-height:94rem] md:[--fold-height:63rem] lg:[--fold-height:47rem] border-y border-border bg-bg-subtle"
    >
      <div className="mx-auto max-w-7xl px-4 py-24 sm:px-6 lg:px-8">
        <SectionHeading
          id="integrations-title"
          eyebrow="Integrations"
          title="Works with the tools you already run"
          lead="Bring your own coding CLI, editor and team tools. Flotilla connects them around the task."
        />
        {executors && (
          <div className="mt-14">
            <h3 className="text-sm font-semibold uppercase tracking-wider text-fg-muted">{executors.title}</h3>
            <IntegrationList items={executors.items} columns={GRID_COLUMNS[0]} />
          </div>
        )}
        <div className="mt-10 grid gap-10 lg:grid-cols-2">
          {others.map((group) => (
            <div key={group.title}>
              <h3 className="text-sm font-semibold uppercase tracking-wider text-fg-muted">{group.title}</h3>
              <IntegrationList items={group.items} columns={GRID_COLUMNS[1]} />
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}
