import { describe, expect, it } from "vitest";
import { clusterScaling, floorTable, formatClusterScaling, formatFloorTable } from "./floor-targets.mjs";

const figures = {
  bareCpuMicros: 26,
  signMicros: 35,
  paths: {
    validate: { rps: 3255, cpuMicros: 237, p99Ms: 5.6 },
    sdkValidate: { rps: 2755, cpuMicros: 80, p99Ms: 4.2 },
    heartbeat: { rps: 302, cpuMicros: 91.5, p99Ms: 5 },
    startEnd: { rps: 153, cpuMicros: 183, p99Ms: 70 },
  },
};

/** What the bench passes to formatFloorTable beside the table, for `figures`. */
const printed = { database: "postgresql", bareCpuMicros: 26, signMicros: 35, loadAverage: "1" };

describe("issue 35's floor table", () => {
  it("divides each path's CPU by bare Fastify's plus one signature, and marks each target", () => {
    const { floorMicros, rows } = floorTable(figures);
    expect(floorMicros).toBe(61);
    const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
    expect(byName["validate (retry loop)"].ratio).toBeCloseTo(3.885, 2);
    expect(byName["validate (retry loop)"]).toMatchObject({ cpuMet: false, p99Met: false, met: false });
    expect(byName["validate as the SDK sends it"]).toMatchObject({ cpuMet: true, p99Met: true, met: true });
    // At the bounds exactly: met (≤).
    expect(byName["execution heartbeat"]).toMatchObject({ ratio: 1.5, met: true });
    // Start + end has a CPU target only: its p99 does not decide.
    expect(byName["execution start + end"]).toMatchObject({ ratio: 3, cpuMet: true, met: true });
  });

  it("never calls a path it did not measure met", () => {
    const { rows } = floorTable({ ...figures, paths: { validate: { rps: 1, cpuMicros: 10, p99Ms: null } } });
    expect(rows.map((row) => row.met)).toEqual([null, null, null, null]);
    const noFloor = floorTable({ ...figures, bareCpuMicros: null });
    expect(noFloor.floorMicros).toBeNull();
    expect(noFloor.rows.every((row) => row.met === null)).toBe(true);
    const text = formatFloorTable(noFloor, {
      database: "pglite",
      bareCpuMicros: null,
      signMicros: 35,
      loadAverage: "1",
    });
    expect(text.filter((line) => line.includes("not measured"))).toHaveLength(4);
    expect(text.join("\n")).not.toMatch(/\| met \|/);
  });

  it("prints a Markdown table with the marks", () => {
    const text = formatFloorTable(floorTable(figures), { ...printed, loadAverage: "2.1 2.0 1.9" });
    expect(text[0]).toContain("postgresql");
    expect(text[0]).toContain("61.0 µs");
    expect(text).toContain(
      "| validate (retry loop) | 3255 | 237 µs | 3.9 × (≤ 1.5 ×) | – | 5.6 ms (≤ 5 ms) | NOT MET |",
    );
    expect(text).toContain("| execution start + end | 153 | 183 µs | 3.0 × (≤ 3 ×) | – | 70 ms (none) | met |");
  });

  it("puts each path beside a signed POST in bare Fastify when one was measured", () => {
    const table = floorTable({ ...figures, bareSignedMicros: 118.5 });
    expect(table.rows[0].vsSignedPost).toBeCloseTo(2, 2);
    // The targets stay issue 35's: the second reference explains, it does not move the mark.
    expect(table.rows[0].met).toBe(false);
    const text = formatFloorTable(table, { ...printed, node: "v24.21.0", bareSignedMicros: 118.5 });
    expect(text[0]).toContain("Node v24.21.0");
    expect(text[0]).toContain("a signed POST in bare Fastify 118.5 µs");
    expect(text).toContain(
      "| validate (retry loop) | 3255 | 237 µs | 3.9 × (≤ 1.5 ×) | 2.0 × | 5.6 ms (≤ 5 ms) | NOT MET |",
    );
  });
});

describe("the heartbeat as issue 35 says it should be", () => {
  it("prints the bare heartbeat against the floor and the service's heartbeat against it, never moving a mark", () => {
    const table = floorTable({ ...figures, bareHeartbeat: { cpuMicros: 61, p99Ms: 1.2 } });
    expect(table.bareHeartbeat).toEqual({ cpuMicros: 61, ratio: 1, p99Ms: 1.2, serviceToBare: 1.5 });
    expect(table.rows[2].met).toBe(true);
    const text = formatFloorTable(table, printed);
    expect(text.at(-1)).toBe(
      'The least a heartbeat can be here ("a conditional update of one row and one signature", in bare Fastify on postgresql): 61 µs CPU = 1.0 × the floor, p99 1.2 ms at 1,000/s; the service\'s heartbeat costs 1.5 × that.',
    );
  });

  it("prints nothing of it when it was not measured", () => {
    for (const bareHeartbeat of [undefined, null, { cpuMicros: null, p99Ms: 1 }]) {
      const table = floorTable({ ...figures, bareHeartbeat });
      expect(table.bareHeartbeat).toBeNull();
      expect(formatFloorTable(table, printed).join("\n")).not.toContain("The least a heartbeat");
    }
  });
});

describe("the cluster's scaling", () => {
  it("divides 3 instances' req/s by 1 instance's and marks ≥ 2.5 × met", () => {
    const rows = clusterScaling({
      1: { validateRps: 1000, heartbeatRps: 400 },
      3: { validateRps: 2500, heartbeatRps: 800, busyShare: 0.97 },
    });
    expect(rows).toEqual([
      { name: "validate", one: 1000, three: 2500, ratio: 2.5, busyShare: 0.97, met: true },
      { name: "execution heartbeat", one: 400, three: 800, ratio: 2, busyShare: 0.97, met: false },
    ]);
    expect(formatClusterScaling(rows, 2).at(-1)).toBe(
      "| execution heartbeat | 400 req/s | 800 req/s | 2.00 × (≥ 2.5 ×) | 97 % | NOT MET |",
    );
  });

  it("calls a run that failed or was skipped not measured", () => {
    const rows = clusterScaling({ 1: { error: "nginx did not start" }, 3: { validateRps: 10 } });
    expect(rows.map((row) => row.met)).toEqual([null, null]);
    expect(clusterScaling(undefined).map((row) => row.met)).toEqual([null, null]);
  });
});
