import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXECUTOR_CLIS, PLANS, TEAM_INTEGRATIONS } from "@flotilla/contracts";
import { BRAND } from "@flotilla/contracts/brand";
import { AUDIT_ADDRESS_PREFIX, KEPT_FOR, RETENTION, RETENTION_DAYS } from "@flotilla/contracts/retention";
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

  it("the privacy policy says how to ask for a request, and what follows an erasure (decision 0056)", () => {
    const policy = expandContentTokens(
      readFileSync(join(__dirname, "../../../content/pages/privacy.md"), "utf8"),
      "pages/privacy",
    );
    // Requests are asked for by mail: there is no self-service page ("Account Settings" is coming soon).
    expect(policy).toContain(`Email ${BRAND.supportEmail} and we will send you a copy of the personal data`);
    expect(policy).toContain(`Email ${BRAND.supportEmail} to ask us to delete`);
    expect(policy).toMatch(
      /opens with a summary of each kind of data: what we hold, where it came from, how long we keep it/,
    );
    // After an erasure: the notice, the session ended with a reason, and a new, empty account on the next sign-in.
    expect(policy).toMatch(/We email the address we deleted to say what we deleted/);
    expect(policy).toMatch(/We delete that email from our systems as soon as it has been sent/);
    expect(policy).toMatch(/it tells you that your account was deleted/);
    expect(policy).toContain("If you sign in with Google again, we create a new, empty account.");
    expect(policy).toContain("Signing in again afterwards creates a new, empty account.");
    expect(policy).toContain(`Backups roll over within a further ${RETENTION_DAYS.backupsRollOver} days.`);
    const tombstone = policy.split("\n").find((line) => line.startsWith("| After an erasure: a fingerprint")) ?? "";
    expect(tombstone).toContain(KEPT_FOR.erasedSessions);
  });
});
