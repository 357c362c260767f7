import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PLANS } from "@flotilla/contracts/plans";
import { inactiveAfterSeconds, SEAT_RULES } from "@flotilla/contracts/seats";
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

/** The seat rules the docs promise are the ones the server applies (contracts/seats.ts, tiers.ts). */
describe("docs/pricing.md seat rules", () => {
  const markdown = readFileSync(join(__dirname, "../../../content/docs/pricing.md"), "utf8");
  const minutes = (seconds: number) => seconds / 60;

  it("states the heartbeat intervals and when a silent device loses its slot", () => {
    expect(markdown).toContain(`every ${minutes(TIERS.free.heartbeatIntervalSeconds)} minutes on the free plan`);
    expect(markdown).toContain(`every ${minutes(TIERS.plus.heartbeatIntervalSeconds)} minutes on paid plans`);
    for (const tier of Object.values(TIERS).filter((t) => t.tier !== "free")) {
      expect(tier.heartbeatIntervalSeconds).toBe(TIERS.plus.heartbeatIntervalSeconds);
    }
    expect(markdown).toContain(`**plus ${minutes(SEAT_RULES.driftAllowanceSeconds)} minutes**`);
    expect(markdown).toContain(
      `(${minutes(inactiveAfterSeconds(TIERS.free.heartbeatIntervalSeconds))} minutes on the free plan`,
    );
    expect(markdown).toContain(`${minutes(inactiveAfterSeconds(TIERS.plus.heartbeatIntervalSeconds))} on paid plans)`);
    expect(markdown).toContain(`within **${SEAT_RULES.revivalWindowSeconds / 86_400} days**`);
  });

  it("states the caps, the rotation grace, the file lifetimes and the clock tolerance", () => {
    expect(markdown).toContain(`at most **${SEAT_RULES.deactivationsPerDay}** slots from the app in any 24 hours`);
    expect(markdown).toContain(`at most **${SEAT_RULES.activationsPerDay}** new devices in any 24 hours`);
    expect(SEAT_RULES.keyRotationGraceSeconds).toBe(3600);
    expect(markdown).toContain("keeps working for **1 hour**");
    expect(markdown).toContain(
      `--ttl ${SEAT_RULES.licenseFileDefaultTtlSeconds / 86_400}d\` (up to ${SEAT_RULES.licenseFileMaxTtlSeconds / 86_400} days)`,
    );
    expect(markdown).toContain(`within ${minutes(SEAT_RULES.signedAnswerMaxAgeSeconds)} minutes of the real time`);
  });
});
