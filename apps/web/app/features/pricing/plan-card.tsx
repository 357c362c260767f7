import { formatPrice, type Plan, QUOTA_NOTE } from "@flotilla/contracts";
import { Check } from "lucide-react";
import { buttonClass } from "../../components/button";

/** One plan of the single plans table: Free shows Join Beta (recommended), paid plans show Coming Soon. */
export function PlanCard({ plan, onJoin }: { plan: Plan; onJoin: () => void }) {
  const [headline, ...alternatives] = plan.prices;
  return (
    <li
      data-tier={plan.tier}
      className={`relative flex flex-col rounded-2xl border bg-bg-elevated p-6 ${
        plan.recommended ? "border-sky-500/60 shadow-xl shadow-sky-900/10 ring-1 ring-sky-500/40" : "border-border"
      }`}
    >
      {plan.recommended && (
        <p className="absolute -top-3 left-6 rounded-full bg-brand px-3 py-0.5 text-xs font-semibold text-white">
          Recommended
        </p>
      )}
      <h3 className="text-lg font-semibold">{plan.name}</h3>
      <p className="mt-2 text-sm leading-6 text-fg-muted lg:min-h-[6rem]">{plan.summary}</p>
      {headline && (
        <p className="mt-5">
          <span className="text-4xl font-semibold tracking-tight">${headline.amount}</span>
          {headline.period !== "lifetime" && <span className="text-sm text-fg-muted">/{headline.period}</span>}
        </p>
      )}
      {alternatives.length > 0 && (
        <p className="mt-1 text-sm text-fg-muted">or {alternatives.map(formatPrice).join(", or ")}</p>
      )}
      <ul className="mt-6 flex-1 space-y-2.5 text-sm">
        {plan.includes.map((item) => (
          <li key={item} className="flex gap-2.5">
            <Check className="mt-0.5 size-4 shrink-0 text-emerald-600 dark:text-emerald-400" aria-hidden="true" />
            <span>{item}</span>
          </li>
        ))}
      </ul>
      {plan.quota && <p className="mt-4 text-xs text-fg-muted">{QUOTA_NOTE}</p>}
      {plan.status === "join-beta" ? (
        <button
          type="button"
          className={buttonClass("primary", "md", "mt-8 w-full")}
          onClick={onJoin}
          data-island="opener"
          data-opens="signup"
        >
          Join Beta
        </button>
      ) : (
        <button type="button" disabled className={buttonClass("secondary", "md", "mt-8 w-full")}>
          Coming Soon
        </button>
      )}
    </li>
  );
}
