import { PLANS } from "@flotilla/contracts";
import { PlanCard } from "./plan-card";

export function PlanGrid({ onJoin, limit }: { onJoin: () => void; limit?: number }) {
  const plans = limit ? PLANS.slice(0, limit) : PLANS;
  return (
    <ul className={`grid gap-6 pt-3 sm:grid-cols-2 ${limit ? "lg:grid-cols-2" : "lg:grid-cols-3 xl:grid-cols-5"}`}>
      {plans.map((plan) => (
        <PlanCard key={plan.tier} plan={plan} onJoin={onJoin} />
      ))}
    </ul>
  );
}
