/**
 * Spec section 9: the plans table. The pricing page, the home page, the docs and blog (through the
 * `{{site:plans-table}}` content token), the dashboard and the server all read this one table.
 *
 * Shared agent memory, local embeddings and the built-in code editor are free headline features (spec section
 * 1): a plan's `includes` says what it *adds* on top of them, in the spec's terms (docs/decisions/0022).
 */
import { TEAM_INTEGRATION_NAMES } from "./integrations";

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
  /** Hosted prompt quotas per month; they add up monthly (QUOTA_NOTE, shown only with a quota). */
  quota?: { hosted: number; lite: number; total: number };
}

export const PLANS: readonly Plan[] = [
  {
    tier: "free",
    name: "Self Hosted Free",
    prices: [{ amount: 0, period: "month" }],
    summary: "Everything you need to run agents on your own machine.",
    includes: [
      "One concurrent execution",
      "Unlimited projects and tasks",
      "Shared agent memory and local embeddings",
      "Built-in code editor",
      "Echo, the no-cost test executor",
    ],
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
    includes: [
      "Unlimited concurrent executions",
      "Shared memories across your machines",
      "Backup options for memory and projects",
      "A choice of embedding models",
    ],
    status: "coming-soon",
    recommended: false,
  },
  {
    tier: "pro",
    name: "Hybrid Pro",
    prices: [{ amount: 20, period: "month" }],
    summary: "Your local agents plus a hosted executor, with your team and its tools in the loop.",
    includes: [
      "350 prompts/month on the hosted executor",
      "500 prompts/month on the lite executor (850 total)",
      "In-app IDE for tasks on the hosted executor",
      "Collaboration: shared projects and reviews",
      `Issue tracker, chat and wiki integrations (${TEAM_INTEGRATION_NAMES})`,
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

/** Spec section 9's closing line; it belongs to the plans that have a quota. */
export const QUOTA_NOTE = "Quotas add up monthly.";

/** "$10/month, $100/year or lifetime $350". */
export function formatPrices(prices: readonly PlanPrice[]): string {
  const all = prices.map(formatPrice);
  return all.length > 1 ? `${all.slice(0, -1).join(", ")} or ${all.at(-1)}` : (all[0] ?? "");
}

export function formatPrice(price: PlanPrice): string {
  const amount = `$${price.amount.toLocaleString("en-US")}`;
  if (price.period === "lifetime") return `lifetime ${amount}`;
  return `${amount}/${price.period}`;
}

export function planByTier(tier: string): Plan | undefined {
  return PLANS.find((plan) => plan.tier === tier);
}
