/**
 * Spec section 9: the plans table. The pricing page, the docs, the dashboard and the server
 * all read this one table.
 */
export type TierId = "free" | "plus" | "pro" | "pro+" | "ultra";
export type PlanStatus = "join-beta" | "coming-soon";

export interface PlanPrice {
  amount: number;
  period: "month" | "year" | "lifetime";
}

export interface Plan {
  tier: TierId;
  name: string;
  /** Prices in US dollars; the first is the headline price. */
  prices: readonly PlanPrice[];
  summary: string;
  /** What the plan contains, as listed on the pricing page. */
  includes: readonly string[];
  status: PlanStatus;
  recommended: boolean;
  /** Hosted prompt quotas per month; they add up monthly. */
  quota?: { hosted: number; lite: number; total: number };
}

export const PLANS: readonly Plan[] = [
  {
    tier: "free",
    name: "Self Hosted Free",
    prices: [{ amount: 0, period: "month" }],
    summary: "Everything you need to run agents on your own machine.",
    includes: ["One concurrent execution", "Unlimited projects and tasks"],
    status: "join-beta",
    recommended: true,
  },
  {
    tier: "plus",
    name: "Self Hosted Plus",
    prices: [
      { amount: 10, period: "month" },
      { amount: 100, period: "year" },
      { amount: 350, period: "lifetime" },
    ],
    summary: "Run a whole fleet of agents in parallel on your own hardware.",
    includes: ["Unlimited concurrent executions", "Shared memories", "Backup options", "Embedding models"],
    status: "coming-soon",
    recommended: false,
  },
  {
    tier: "pro",
    name: "Hybrid Pro",
    prices: [{ amount: 20, period: "month" }],
    summary: "Local agents plus a hosted executor, an in-app IDE and your team's tools.",
    includes: [
      "350 prompts/month on the hosted executor",
      "500 prompts/month on the lite executor (850 total)",
      "In-app IDE",
      "Collaboration",
      "Issue tracker, chat and wiki integrations",
    ],
    status: "coming-soon",
    recommended: false,
    quota: { hosted: 350, lite: 500, total: 850 },
  },
  {
    tier: "pro+",
    name: "Pro+",
    prices: [{ amount: 50, period: "month" }],
    summary: "For people who keep several agents busy all day.",
    includes: [
      "1,000 prompts/month on the hosted executor",
      "2,000 prompts/month on the lite executor (3,000 total)",
      "Everything in Hybrid Pro",
    ],
    status: "coming-soon",
    recommended: false,
    quota: { hosted: 1000, lite: 2000, total: 3000 },
  },
  {
    tier: "ultra",
    name: "Ultra",
    prices: [{ amount: 200, period: "month" }],
    summary: "The hosted executor with fewer limits, for teams that ship around the clock.",
    includes: ["Hosted executor with fewer limits", "10,000 lite prompts/month", "Everything in Pro+"],
    status: "coming-soon",
    recommended: false,
    quota: { hosted: 0, lite: 10000, total: 10000 },
  },
] as const;

export const QUOTA_NOTE = "Quotas add up monthly.";

export function formatPrice(price: PlanPrice): string {
  const amount = `$${price.amount.toLocaleString("en-US")}`;
  if (price.period === "lifetime") return `lifetime ${amount}`;
  return `${amount}/${price.period}`;
}

export function planByTier(tier: string): Plan | undefined {
  return PLANS.find((plan) => plan.tier === tier);
}
