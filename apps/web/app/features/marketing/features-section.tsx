import { Brain, Code2, GitBranch, Network, Plug, ScrollText } from "lucide-react";
import { SectionHeading } from "../../components/section-heading";
import { FEATURES, type FeatureIcon } from "./marketing-data";

const ICONS: Record<FeatureIcon, typeof Brain> = {
  network: Network,
  "git-branch": GitBranch,
  brain: Brain,
  plug: Plug,
  scroll: ScrollText,
  code: Code2,
};

export function FeaturesSection() {
  return (
    <section
      id="features"
      aria-labelledby="features-title"
      className="below-fold [--fold-height:126rem] md:[--fold-height:74rem] lg:[--fold-height:58rem] mx-auto max-w-7xl px-4 py-24 sm:px-6 lg:px-8"
    >
      <SectionHeading
        id="features-title"
        eyebrow="Features"
        title="Everything a fleet of agents needs to ship real work"
        lead="Flotilla is the layer between you and your coding agents: it plans, isolates, remembers and hands back work you can trust."
      />
      <ul className="mt-14 grid gap-5 sm:grid-cols-2 lg:grid-cols-3">
        {FEATURES.map((feature) => {
          const Icon = ICONS[feature.icon];
          return (
            <li
              key={feature.title}
              className="group relative rounded-2xl border border-border bg-bg-elevated p-6 transition-shadow hover:shadow-lg hover:shadow-sky-900/5"
            >
              <span className="inline-flex size-10 items-center justify-center rounded-xl bg-brand text-white">
                <Icon className="size-5" aria-hidden="true" />
              </span>
              <h3 className="mt-5 text-lg font-semibold">{feature.title}</h3>
              <p className="mt-2 text-sm leading-6 text-fg-muted">{feature.body}</p>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
