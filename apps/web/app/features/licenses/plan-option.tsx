import { formatPrice, type Plan } from "@flotilla/contracts/plans";
import { TIERS } from "@flotilla/contracts/tiers";
import { Check, Loader2 } from "lucide-react";
import { useId } from "react";
import { buttonClass } from "../../components/button";

interface PlanOptionProps {
  plan: Plan;
  creating: boolean;
  /** True while any plan is being created: every choice waits. */
  busy: boolean;
  onChoose: (plan: Plan) => void;
}

/** One plan in the Create Your License dialog; plans that are not available yet show Coming Soon. */
export function PlanOption({ plan, creating, busy, onChoose }: PlanOptionProps) {
  const limits = TIERS[plan.tier];
  const available = limits.available && plan.status !== "coming-soon";
  const [headline] = plan.prices;
  const titleId = useId();
  return (
    <li
      aria-labelledby={titleId}
      data-tier={plan.tier}
      className={`relative flex flex-col rounded-xl border p-5 ${
        plan.recommended ? "border-sky-500/60 ring-1 ring-sky-500/40" : "border-border"
      } ${available ? "bg-bg-elevated" : "bg-bg-subtle"}`}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={titleId} className="font-semibold">
          {plan.name}
        </h3>
        {plan.recommended && (
          <span className="rounded-full bg-brand px-2.5 py-0.5 text-xs font-semibold text-white">Recommended</span>
        )}
        {!available && (
          <span className="rounded-full bg-amber-100 px-2.5 py-0.5 text-xs font-semibold text-amber-900 dark:bg-amber-500/15 dark:text-amber-300">
            Coming Soon
          </span>
        )}
      </div>
      {headline && (
        <p className="mt-2">
          <span className="text-3xl font-semibold tracking-tight">${headline.amount}</span>
          {headline.period !== "lifetime" && <span className="text-sm text-fg-muted">/{headline.period}</span>}
        </p>
      )}
      {plan.prices.length > 1 && (
        <p className="text-xs text-fg-muted">or {plan.prices.slice(1).map(formatPrice).join(", or ")}</p>
      )}
      <p className="mt-2 text-sm text-fg-muted">{plan.summary}</p>
      <ul className="mt-4 flex-1 space-y-2 text-sm">
        {[...plan.includes, `Up to ${limits.maxMachines} devices`].map((item) => (
          <li key={item} className="flex gap-2">
            <Check className="mt-0.5 size-4 shrink-0 text-emerald-600 dark:text-emerald-400" aria-hidden="true" />
            <span>{item}</span>
          </li>
        ))}
      </ul>
      {available ? (
        <button
          type="button"
          onClick={() => onChoose(plan)}
          disabled={busy}
          aria-busy={creating}
          className={buttonClass("primary", "md", "mt-5 w-full")}
        >
          {creating && <Loader2 className="size-4 animate-spin" aria-hidden="true" />}
          {creating ? "Creating..." : `Create ${plan.tier === "free" ? "Free" : plan.name} License`}
        </button>
      ) : (
        <button type="button" disabled className={buttonClass("secondary", "md", "mt-5 w-full")}>
          Coming Soon
        </button>
      )}
    </li>
  );
}
