import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXECUTOR_CLIS, PLANS, TEAM_INTEGRATIONS } from "@flotilla/contracts";
import { AUDIT_ADDRESS_PREFIX, RETENTION } from "@flotilla/contracts/retention";
import { describe, expect, it } from "vitest";
import { expandContentTokens } from "./content-tokens.server";

describe("content tokens", () => {
  it("writes the supported tools from the contracts", () => {
    const text = expandContentTokens("Use {{site:executor-clis}}; {{site:issue-tracker}}, {{site:chat}}.", "t");
    for (const cli of EXECUTOR_CLIS) expect(text).toContain(cli.name);
    expect(text).toContain(`${TEAM_INTEGRATIONS.issueTracker.name}, ${TEAM_INTEGRATIONS.chat.name}.`);
    expect(expandContentTokens("{{site:executor-clis-table}}", "t")).toContain("`claude`");
  });

  it("writes the plans table from the plans, one row per plan", () => {
    const table = expandContentTokens("{{site:plans-table}}", "t").split("\n");
    expect(table).toHaveLength(PLANS.length + 2);
    expect(table[2]).toContain("**Self Hosted Free** | $0/month");
    expect(table[3]).toContain("$10/month, $100/year or lifetime $350");
    expect(table[3]).toContain("Shared memories across your machines");
  });

  it("leaves other double braces alone and fails on an unknown token", () => {
    expect(expandContentTokens("Outcome: {{what should be true}}", "t")).toBe("Outcome: {{what should be true}}");
    expect(() => expandContentTokens("{{site:nope}}", "docs/x")).toThrow("docs/x: unknown content token");
  });

  it("the privacy policy's retention table states what the retention job keeps (issue: promises kept)", () => {
    const policy = expandContentTokens(
      readFileSync(join(__dirname, "../../../content/pages/privacy.md"), "utf8"),
      "pages/privacy",
    );
    const row = (data: string) => policy.split("\n").find((line) => line.startsWith(`| ${data} |`)) ?? "";
    const days = (ms: number) => `${ms / 86_400_000} days`;
    expect(row("Validation attempts")).toContain(days(RETENTION.validationRollupMs));
    expect(row("Usage reports")).toContain(days(RETENTION.usageReportMs));
    expect(row("Sign-in sessions")).toContain(days(RETENTION.endedSessionMs));
    expect(row("Device activations and releases")).toContain(days(RETENTION.machineEventMs));
    expect(row("Emails we sent you, and webhook messages about you")).toContain(days(RETENTION.finishedOutboxMs));
    // The audit log keeps a network, not an address, and names nobody (decision 0053).
    const audit = row("Audit log of changes to your account and licenses");
    expect(audit).toContain(`first ${AUDIT_ADDRESS_PREFIX.ipv4} bits of an IPv4 address`);
    expect(audit).toContain(`first ${AUDIT_ADDRESS_PREFIX.ipv6} of an IPv6 one`);
    expect(audit).toMatch(/never by email address or name/);
    expect(policy).not.toMatch(/network address of the request/);
    expect(policy).not.toMatch(/12 months/);
    expect(policy).not.toContain("{{site:");
  });
});
