import { describe, expect, it } from "vitest";
import { TEAM_INTEGRATION_NAMES } from "./integrations";
import { formatPrice, formatPrices, PLANS } from "./plans";

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

describe("what each plan adds (decision 0022)", () => {
  it("lists the free headline features under Free", () => {
    const free = PLANS.find((p) => p.tier === "free")!;
    expect(free.includes).toContain("Shared agent memory and local embeddings");
    expect(free.includes).toContain("Built-in code editor");
  });

  it("never sells a free headline feature, unqualified, as a paid addition", () => {
    const bare = [
      "shared memories",
      "shared memory",
      "embedding models",
      "local embeddings",
      "in-app ide",
      "code editor",
    ];
    for (const plan of PLANS.filter((p) => p.tier !== "free")) {
      for (const item of plan.includes) expect(bare, `${plan.name}: "${item}"`).not.toContain(item.toLowerCase());
    }
  });

  it("names the team tools in Hybrid Pro's integrations", () => {
    const pro = PLANS.find((p) => p.tier === "pro")!;
    expect(pro.includes.join(" ")).toContain(TEAM_INTEGRATION_NAMES);
  });

  it("writes a plan's prices as one phrase", () => {
    expect(formatPrices(PLANS[1]!.prices)).toBe("$10/month, $100/year or lifetime $350");
    expect(formatPrices(PLANS[0]!.prices)).toBe("$0/month");
  });
});
