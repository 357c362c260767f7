import { Sparkles } from "lucide-react";
import { featureLabel } from "../../lib/portal-format";

/** The customer's most used features, hyphens shown as spaces; nothing at all when there are none. */
export function MostUsedFeatures({ features }: { features: readonly string[] }) {
  if (features.length === 0) return null;
  return (
    <section aria-labelledby="most-used-title" className="rounded-2xl border border-border bg-bg-elevated p-5">
      <h2 id="most-used-title" className="font-semibold">
        Most Used Features
      </h2>
      <ol className="mt-3 space-y-2">
        {features.map((feature, index) => (
          <li key={`${feature}-${index}`} className="flex items-center gap-3 text-sm">
            <span className="grid size-6 shrink-0 place-items-center rounded-full bg-bg-subtle text-xs font-semibold text-fg-muted">
              {index + 1}
            </span>
            <span className="min-w-0 break-words capitalize">{featureLabel(feature)}</span>
            {index === 0 && <Sparkles className="ml-auto size-4 shrink-0 text-amber-500" aria-hidden="true" />}
          </li>
        ))}
      </ol>
    </section>
  );
}
