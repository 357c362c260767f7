import { tierBadgeClass } from "./license-helpers";

/** The license's tier in upper case, coloured per tier. */
export function TierBadge({ tier }: { tier: string }) {
  return (
    <span
      className={`inline-flex items-center rounded-md px-2 py-0.5 text-xs font-semibold tracking-wide uppercase ring-1 ring-inset ${tierBadgeClass(tier)}`}
    >
      <span className="sr-only">Tier: </span>
      {tier}
    </span>
  );
}
