// Execution-lease load for bench/api.mjs (decision 0048), as autocannon request lists: heartbeats round-robin over a
// fleet of running leases, and start + end pairs on licenses with a free slot. Every call carries a fresh nonce and
// an Idempotency-Key of its own, as the SDK sends them (each answer is a new Ed25519 signature; a start stores its key).
import { randomBytes, randomUUID } from "node:crypto";

/** Headers of a signed desktop call as the SDK sends it: a nonce, and one Idempotency-Key per logical call. */
export const signedHeaders = () => ({
  "content-type": "application/json",
  "flotilla-nonce": randomBytes(12).toString("base64url"),
  "idempotency-key": randomUUID(),
});

/**
 * The kind of request ("start", "end") whose answer autocannon is about to time: a request's onResponse runs just
 * before autocannon emits that response's latency, in the same tick. The reader clears it after each response.
 */
export const answered = { kind: null };

/** Heartbeats, round-robin over `fleet` ({ id, licenseKey, machine } each): one request list, shared by every run. */
export function heartbeatRequests(fleet) {
  let sent = 0;
  return [
    {
      method: "POST",
      path: "/api/license/executions",
      setupRequest: (request) => {
        const lease = fleet[sent++ % fleet.length];
        return {
          ...request,
          path: `/api/license/executions/${lease.id}/heartbeat`,
          headers: signedHeaders(),
          body: JSON.stringify({ license_key: lease.licenseKey, machine_id: lease.machine }),
        };
      },
    },
  ];
}

/**
 * Start + end pairs, each on a license of `pool` ({ licenseKey, machine } each) with a free slot: a start takes one
 * from the free list (a Free license runs one execution at a time, so no two connections share one), its end hands it
 * back; a refused start puts it last in line at once and its end is skipped (autocannon starts the pair over). A run that
 * stops mid-pair leaves a license taken, maybe with a lease running whose id never came back: `tidy` (between runs,
 * unmeasured) ends every lease running on the pool's licenses and frees them all.
 */
export function startEndPairs(pool) {
  const free = [...pool];
  const requests = [
    {
      method: "POST",
      path: "/api/license/executions",
      setupRequest: (request, context) => {
        const license = free.pop();
        if (!license) throw new Error(`no license with a free slot left: ${pool.length} licenses for more connections`);
        context.license = license;
        return {
          ...request,
          headers: signedHeaders(),
          body: JSON.stringify({ license_key: license.licenseKey, machine_id: license.machine, feature: "bench-pair" }),
        };
      },
      onResponse: (status, body, context) => {
        answered.kind = "start";
        if (status === 200) context.id = JSON.parse(body).data.execution.id;
        // Refused: last in line, so that the next start tries another license.
        else free.unshift(context.license);
      },
    },
    {
      method: "POST",
      path: "/api/license/executions",
      setupRequest: (request, context) =>
        context.id
          ? {
              ...request,
              path: `/api/license/executions/${context.id}/end`,
              headers: signedHeaders(),
              body: JSON.stringify({ license_key: context.license.licenseKey, machine_id: context.license.machine }),
            }
          : null,
      onResponse: (_status, _body, context) => {
        answered.kind = "end";
        free.push(context.license);
      },
    },
  ];
  return {
    requests,
    /** Licenses free for a start now. */
    get free() {
      return free.length;
    },
    /** `post(path, body)` answers the parsed JSON of a desktop call. */
    async tidy(post) {
      for (const { licenseKey, machine } of pool) {
        const body = { license_key: licenseKey, machine_id: machine };
        const listed = await post("/api/license/executions/running", body);
        for (const lease of listed.data.running) {
          if (lease.id) await post(`/api/license/executions/${lease.id}/end`, body);
        }
      }
      free.splice(0, free.length, ...pool);
    },
  };
}

/** p50, p99 and max of latencies (ms; sorts them in place), and how many. */
export function percentiles(latencies) {
  const sorted = latencies.sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN, count: sorted.length };
}
