/** The README restates the execution rules by hand: this keeps its numbers equal to the contracts and the SDK's. */
import { readFileSync } from "node:fs";
import { EXECUTION_RULES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { SEAT_RULES } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { describe, expect, it } from "vitest";
import { EXIT } from "../src/cli";
import { EXECUTION_TIMINGS_FOR_DOCS } from "../src/executions";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const section = (heading: string) => {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
};

describe("README: executions", () => {
  it("states the contracts' numbers", () => {
    const executions = section("Executions");
    expect(executions).toContain(`Self Hosted Free: ${TIERS.free.features.maxConcurrentExecutions};`);
    expect(executions).toContain(`\`heartbeat_interval_seconds\`: ${EXECUTION_RULES.heartbeatIntervalSeconds} s`);
    expect(executions).toContain(`(silent for ${executionExpiresAfterSeconds()} s)`);
    expect(executions).toContain(`${EXECUTION_RULES.revivalWindowSeconds / 60}-minute revival window`);
    expect(executions).toContain(`(${EXECUTION_RULES.maxPerMachineUnlimited} on one machine for an unlimited plan`);
    expect(executions).toContain(`${executionExpiresAfterSeconds()} seconds after its last heartbeat`);
    expect(executions).toContain(`at most ${EXECUTION_TIMINGS_FOR_DOCS.exitWaitMs / 1000} seconds`);
    expect(executions).toContain(`tried again after ${EXECUTION_TIMINGS_FOR_DOCS.retryMs / 1000} s`);
    const offline = section("What the server cannot see offline, and what bounds it");
    expect(offline).toContain(`at most ${SEAT_RULES.licenseFileMaxTtlSeconds / 86_400} days`);
  });

  it("documents the CLI's refusal exit code", () => {
    expect(readme).toContain(`| ${EXIT.limit} | execution refused`);
  });
});
