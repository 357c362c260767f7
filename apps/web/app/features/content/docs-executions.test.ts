import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  EXECUTION_RULES,
  executionExpiresAfterSeconds,
  executionRuleText,
  limitText,
} from "@flotilla/contracts/executions";
import { formatDuration, SEAT_RULES } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { EXECUTION_EXIT_WAIT_MS } from "@flotilla/contracts/timings";
import { describe, expect, it } from "vitest";
import { expandContentTokens } from "./content-tokens.server";

/**
 * The execution rules the docs and the publisher's guide state are the ones the service enforces
 * (contracts/executions.ts, decision 0048): written through content tokens, never by hand.
 */
const PAGES = [
  { file: "docs/pricing.md", heading: "### Concurrent executions" },
  { file: "pages/publishers-guide.md", heading: "## Concurrent executions" },
] as const;

/** The section under `heading`, up to the next heading of the same level or higher. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, `no "${heading}" section`).toBeGreaterThan(-1);
  const level = heading.split(" ")[0]!.length;
  const rest = markdown.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level}} `));
  return next === -1 ? rest : rest.slice(0, next);
}

const DURATION = /\b(\d+) (second|minute|hour|day)s?\b/g;

/** Every duration the rules have, as the docs write them. */
const RULE_DURATIONS = new Set(
  [
    EXECUTION_RULES.heartbeatIntervalSeconds,
    executionExpiresAfterSeconds(),
    EXECUTION_RULES.driftAllowanceSeconds,
    EXECUTION_RULES.revivalWindowSeconds,
    EXECUTION_EXIT_WAIT_MS / 1000,
    SEAT_RULES.licenseFileMaxTtlSeconds,
  ].map(formatDuration),
);

describe.each(PAGES)("$file: concurrent executions", ({ file, heading }) => {
  const raw = readFileSync(join(__dirname, "../../../content", file), "utf8");
  const rawSection = section(raw, heading);
  const expanded = section(expandContentTokens(raw, file), heading);

  it("states the rule sentence from the contracts", () => {
    expect(expanded).toContain(executionRuleText());
    expect(expanded).toContain(limitText(TIERS.free.features.maxConcurrentExecutions));
  });

  it("writes no duration by hand: each one comes from a content token", () => {
    expect(rawSection.match(DURATION) ?? []).toEqual([]);
    expect(rawSection).toContain("{{site:execution-rule}}");
  });

  it("every duration it states is one of the contracts' numbers", () => {
    const stated = [...expanded.matchAll(DURATION)].map((match) => match[0]);
    expect(stated.length).toBeGreaterThan(0);
    for (const duration of stated) expect(RULE_DURATIONS, duration).toContain(duration);
  });
});

describe("the publisher's guide's execution table and numbers", () => {
  const raw = readFileSync(join(__dirname, "../../../content/pages/publishers-guide.md"), "utf8");
  const guide = section(expandContentTokens(raw, "pages/publishers-guide"), "## Concurrent executions");

  it("has one row per tier with its limit", () => {
    for (const tier of Object.values(TIERS)) {
      const limit = tier.features.maxConcurrentExecutions;
      expect(guide).toContain(`| ${tier.tier} | ${limit === null ? "Unlimited" : limit} |`);
    }
  });

  it("states the heartbeat, the expiry, the revival window, the holders named and the per-machine bound", () => {
    expect(guide).toContain(`a heartbeat every ${formatDuration(EXECUTION_RULES.heartbeatIntervalSeconds)}`);
    expect(guide).toContain(`after ${formatDuration(executionExpiresAfterSeconds())}`);
    expect(guide).toContain(`within ${formatDuration(EXECUTION_RULES.revivalWindowSeconds)}`);
    expect(guide).toContain(`the ${EXECUTION_RULES.holdersNamed} oldest`);
    expect(guide).toContain(`up to ${EXECUTION_RULES.maxPerMachineUnlimited} at once on one machine`);
    expect(guide).toContain(`waiting at most ${formatDuration(EXECUTION_EXIT_WAIT_MS / 1000)}`);
  });
});
