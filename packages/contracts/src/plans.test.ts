import { describe, expect, it } from "vitest";
import { formatPrice, PLANS } from "./plans";

describe("plans table (spec section 9)", () => {
  it("has the five plans in order with their prices", () => {
    expect(PLANS.map((p) => [p.name, p.prices.map(formatPrice).join(", ")])).toEqual([
      ["Self Hosted Free", "$0/month"],
      ["Self Hosted Plus", "$10/month, $100/year, lifetime $350"],
      ["Hybrid Pro", "$20/month"],
      ["Pro+", "$50/month"],
      ["Ultra", "$200/month"],
    ]);
  });

  it("recommends Free only, with Join Beta; every paid plan is Coming Soon", () => {
    expect(PLANS.filter((p) => p.recommended).map((p) => p.tier)).toEqual(["free"]);
    expect(PLANS.filter((p) => p.status === "join-beta").map((p) => p.tier)).toEqual(["free"]);
    expect(PLANS.filter((p) => p.prices[0]!.amount > 0).every((p) => p.status === "coming-soon")).toBe(true);
  });

  it("adds hosted and lite quotas up to the monthly total", () => {
    for (const plan of PLANS)
      if (plan.quota && plan.quota.hosted > 0) expect(plan.quota.hosted + plan.quota.lite).toBe(plan.quota.total);
    expect(PLANS.find((p) => p.tier === "pro")?.quota?.total).toBe(850);
    expect(PLANS.find((p) => p.tier === "pro+")?.quota?.total).toBe(3000);
  });
});
