// Issue 35's table: each hot path's server CPU per request against the floor of a signed answer (bare Fastify's CPU
// per request + one Ed25519 signature, both measured in the same run), and its p99 at 1,000 req/s, each beside its
// target and marked met / not met. A missing figure (a skipped part of the run) is "not measured", never "met".
// Beside it, each path against a signed POST in bare Fastify (bench/lib/bare-fastify.mjs): what Fastify itself costs
// to parse a JSON body and send one signed answer, so the table says how much of a path is the service's own. Under it,
// the heartbeat as the issue says it should be ("a conditional update of one row and one signature", in bare Fastify
// on the same kind of database): the least a heartbeat can cost here, against the floor and against the service's.

/** The targets of issue 35: CPU as a multiple of the floor, p99 in ms at 1,000 req/s (null: no latency target). */
export const FLOOR_TARGETS = [
  { key: "validate", name: "validate (retry loop)", maxRatio: 1.5, maxP99Ms: 5 },
  { key: "sdkValidate", name: "validate as the SDK sends it", maxRatio: 1.5, maxP99Ms: 5 },
  { key: "heartbeat", name: "execution heartbeat", maxRatio: 1.5, maxP99Ms: 5 },
  { key: "startEnd", name: "execution start + end", maxRatio: 3, maxP99Ms: null },
];

const finite = (value) => typeof value === "number" && Number.isFinite(value);

/**
 * @param {{ bareCpuMicros: number | null, signMicros: number | null, bareSignedMicros?: number | null,
 *   bareHeartbeat?: { cpuMicros: number | null, p99Ms: number | null } | null,
 *   paths: Record<string, { rps?: number, cpuMicros: number | null, p99Ms?: number | null } | undefined> }} figures
 * @returns {{ floorMicros: number | null, rows: Array<{ name: string, rps: number | null, cpuMicros: number | null,
 *   ratio: number | null, vsSignedPost: number | null, maxRatio: number, p99Ms: number | null, maxP99Ms: number | null,
 *   cpuMet: boolean | null, p99Met: boolean | null, met: boolean | null }>,
 *   bareHeartbeat: { cpuMicros: number, ratio: number | null, p99Ms: number | null, serviceToBare: number | null } | null }}
 */
export function floorTable({ bareCpuMicros, signMicros, bareSignedMicros = null, bareHeartbeat = null, paths }) {
  const floorMicros = finite(bareCpuMicros) && finite(signMicros) ? bareCpuMicros + signMicros : null;
  const rows = FLOOR_TARGETS.map(({ key, name, maxRatio, maxP99Ms }) => {
    const path = paths[key];
    const cpuMicros = finite(path?.cpuMicros) ? path.cpuMicros : null;
    const p99Ms = finite(path?.p99Ms) ? path.p99Ms : null;
    const ratio = floorMicros && cpuMicros !== null ? cpuMicros / floorMicros : null;
    const vsSignedPost = finite(bareSignedMicros) && cpuMicros !== null ? cpuMicros / bareSignedMicros : null;
    const cpuMet = ratio === null ? null : ratio <= maxRatio;
    const p99Met = maxP99Ms === null ? true : p99Ms === null ? null : p99Ms <= maxP99Ms;
    const met = cpuMet === null || p99Met === null ? null : cpuMet && p99Met;
    return {
      name,
      rps: finite(path?.rps) ? path.rps : null,
      cpuMicros,
      ratio,
      vsSignedPost,
      maxRatio,
      p99Ms,
      maxP99Ms,
      cpuMet,
      p99Met,
      met,
    };
  });
  const heartbeat = rows.find((row) => row.name === "execution heartbeat");
  const bareMicros = finite(bareHeartbeat?.cpuMicros) ? bareHeartbeat.cpuMicros : null;
  return {
    floorMicros,
    rows,
    bareHeartbeat:
      bareMicros === null
        ? null
        : {
            cpuMicros: bareMicros,
            ratio: floorMicros ? bareMicros / floorMicros : null,
            p99Ms: finite(bareHeartbeat.p99Ms) ? bareHeartbeat.p99Ms : null,
            serviceToBare: heartbeat?.cpuMicros ? heartbeat.cpuMicros / bareMicros : null,
          },
  };
}

const mark = (met) => (met === null ? "not measured" : met ? "met" : "NOT MET");

/** The table as text lines (Markdown, so that it pastes into the issue and the README as it is). */
export function formatFloorTable(
  { floorMicros, rows, bareHeartbeat = null },
  { database, node = null, bareCpuMicros, signMicros, bareSignedMicros = null, loadAverage },
) {
  const lines = [
    `Issue 35 targets (${database}${node ? `, Node ${node}` : ""}; floor = bare Fastify ${bareCpuMicros ?? "?"} µs + one Ed25519 signature ${signMicros ?? "?"} µs = ${floorMicros === null ? "?" : floorMicros.toFixed(1)} µs CPU; a signed POST in bare Fastify ${bareSignedMicros ?? "?"} µs; load average ${loadAverage})`,
    "",
    "| path | req/s | server CPU per request | vs the floor (target) | vs a signed POST in bare Fastify | p99 at 1,000/s (target) | |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const row of rows) {
    const ratio = row.ratio === null ? "–" : `${row.ratio.toFixed(1)} × (≤ ${row.maxRatio} ×)`;
    const p99 =
      row.maxP99Ms === null
        ? row.p99Ms === null
          ? "–"
          : `${row.p99Ms} ms (none)`
        : `${row.p99Ms === null ? "–" : `${row.p99Ms} ms`} (≤ ${row.maxP99Ms} ms)`;
    lines.push(
      `| ${row.name} | ${row.rps ?? "–"} | ${row.cpuMicros === null ? "–" : `${row.cpuMicros} µs`} | ${ratio} | ${row.vsSignedPost === null ? "–" : `${row.vsSignedPost.toFixed(1)} ×`} | ${p99} | ${mark(row.met)} |`,
    );
  }
  if (bareHeartbeat) {
    const times = (value) => (value === null ? "?" : `${value.toFixed(1)} ×`);
    lines.push(
      "",
      `The least a heartbeat can be here ("a conditional update of one row and one signature", in bare Fastify on ${database}): ${bareHeartbeat.cpuMicros} µs CPU = ${times(bareHeartbeat.ratio)} the floor, p99 ${bareHeartbeat.p99Ms ?? "?"} ms at 1,000/s; the service's heartbeat costs ${times(bareHeartbeat.serviceToBare)} that.`,
    );
  }
  return lines;
}

/** Issue 35: through nginx, 3 instances carry at least this many times one instance's throughput. */
export const CLUSTER_SCALING_TARGET = 2.5;

/**
 * The cluster's scaling per path: req/s with 3 instances ÷ with 1, marked against CLUSTER_SCALING_TARGET, beside how
 * busy the machine's cores were during the 3-instance run (on 2 cores, 3 instances, nginx, PostgreSQL, Redis and the
 * load generator share them: a busy share near 100 % says the cores, not the service, set the limit).
 * @param {Record<string, { validateRps?: number, heartbeatRps?: number, busyShare?: number, error?: string }>} instances
 * @returns {Array<{ name: string, one: number | null, three: number | null, ratio: number | null, busyShare: number | null, met: boolean | null }>}
 */
export function clusterScaling(instances) {
  const one = instances?.[1] ?? {};
  const three = instances?.[3] ?? {};
  return [
    ["validate", "validateRps"],
    ["execution heartbeat", "heartbeatRps"],
  ].map(([name, key]) => {
    const a = finite(one[key]) ? one[key] : null;
    const b = finite(three[key]) ? three[key] : null;
    const ratio = a && b !== null ? b / a : null;
    return {
      name,
      one: a,
      three: b,
      ratio,
      busyShare: finite(three.busyShare) ? three.busyShare : null,
      met: ratio === null ? null : ratio >= CLUSTER_SCALING_TARGET,
    };
  });
}

/** The scaling rows as Markdown lines. */
export function formatClusterScaling(rows, cores) {
  const lines = [
    `Cluster through nginx on PostgreSQL and Redis (${cores} cores on this machine)`,
    "",
    "| path | 1 instance | 3 instances | × (target) | cores busy with 3 | |",
    "|---|---|---|---|---|---|",
  ];
  for (const row of rows) {
    const ratio = row.ratio === null ? "–" : `${row.ratio.toFixed(2)} × (≥ ${CLUSTER_SCALING_TARGET} ×)`;
    const busy = row.busyShare === null ? "–" : `${Math.round(row.busyShare * 100)} %`;
    lines.push(
      `| ${row.name} | ${row.one ?? "–"} req/s | ${row.three ?? "–"} req/s | ${ratio} | ${busy} | ${mark(row.met)} |`,
    );
  }
  return lines;
}
