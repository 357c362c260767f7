import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PLANS } from "@flotilla/contracts/plans";
import { TIERS } from "@flotilla/contracts/tiers";
import { describe, expect, it } from "vitest";

/** The licensing docs restate the tier limits; this keeps them equal to the table the server enforces. */
describe("docs/pricing.md device limits", () => {
  const markdown = readFileSync(join(__dirname, "../../../content/docs/pricing.md"), "utf8");

  it.each(PLANS.map((plan) => [plan.name, plan.tier] as const))(
    "states %s's limits as the tier table",
    (name, tier) => {
      const section = markdown.slice(markdown.indexOf("### Device limits per plan"));
      const row = section.split("\n").find((line) => line.startsWith(`| ${name} |`));
      expect(row, `no row for ${name}`).toBeDefined();
      const [, , devices, executions] = row!.split("|").map((cell) => cell.trim());
      expect(Number(devices)).toBe(TIERS[tier].maxMachines);
      const concurrent = TIERS[tier].features.maxConcurrentExecutions;
      expect(executions).toBe(concurrent === null ? "Unlimited" : String(concurrent));
    },
  );
});
