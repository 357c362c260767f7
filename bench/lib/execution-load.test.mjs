import { createServer } from "node:http";
import autocannon from "autocannon";
import { afterEach, describe, expect, it } from "vitest";
import { answered, heartbeatRequests, percentiles, startEndPairs } from "./execution-load.mjs";

/**
 * A stand-in for the execution endpoints with the Free tier's rule: one running lease per license. It refuses a
 * start on a license that runs one (409), and an end or heartbeat of a lease that is not that license's (404).
 */
function fakeService() {
  const running = new Map(); // license key → lease id
  const leases = new Map(); // lease id → license key
  const seen = { starts: 0, ends: 0, refused: 0, notFound: 0, heartbeats: new Map(), nonces: new Set() };
  let next = 0;
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      const body = JSON.parse(text || "{}");
      const nonce = request.headers["flotilla-nonce"];
      if (nonce) seen.nonces.add(nonce);
      const answer = (status, json) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(json));
      };
      const path = request.url ?? "";
      if (path === "/api/license/executions") {
        seen.starts += 1;
        if (running.has(body.license_key)) {
          seen.refused += 1;
          return answer(409, { success: false, code: "EXECUTION_LIMIT" });
        }
        const id = `lease-${next++}`;
        running.set(body.license_key, id);
        leases.set(id, body.license_key);
        return answer(200, { success: true, data: { execution: { id } } });
      }
      if (path === "/api/license/executions/running") {
        const id = running.get(body.license_key);
        return answer(200, { success: true, data: { running: id ? [{ id }] : [] } });
      }
      const [, id, action] = /^\/api\/license\/executions\/([^/]+)\/(end|heartbeat)$/.exec(path) ?? [];
      if (!id || leases.get(id) !== body.license_key) {
        seen.notFound += 1;
        return answer(404, { success: false });
      }
      if (action === "heartbeat") {
        seen.heartbeats.set(id, (seen.heartbeats.get(id) ?? 0) + 1);
        return answer(200, { success: true });
      }
      seen.ends += 1;
      if (running.get(body.license_key) === id) running.delete(body.license_key);
      return answer(200, { success: true, data: { ended: true } });
    });
  });
  return {
    seen,
    running,
    async start() {
      await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${server.address().port}`;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
    /** A desktop call answered in process (for tidy). */
    async post(url, path, body) {
      const response = await fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });
      return response.json();
    },
  };
}

const services = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

const licenses = (count) =>
  Array.from({ length: count }, (_, i) => ({ licenseKey: `FLOT-LICENSE-${i}`, machine: "bench-machine" }));

describe("start + end pairs under autocannon", () => {
  it("never starts on a license that runs one: no refusals, every end names its own start's lease", async () => {
    const service = fakeService();
    services.push(service);
    const url = await service.start();
    const pairs = startEndPairs(licenses(16));
    const kinds = { start: 0, end: 0 };
    const instance = autocannon({ url, connections: 8, duration: 1, requests: pairs.requests });
    instance.on("response", () => {
      if (answered.kind) kinds[answered.kind] += 1;
      answered.kind = null;
    });
    const result = await instance;

    expect(service.seen.starts).toBeGreaterThan(100);
    expect(service.seen.refused).toBe(0);
    expect(service.seen.notFound).toBe(0);
    expect(result.non2xx).toBe(0);
    // Each response was tagged with its kind, in step with what the server answered.
    expect(kinds.start + kinds.end).toBe(result.requests.total);
    expect(Math.abs(kinds.start - kinds.end)).toBeLessThanOrEqual(8);
    expect(service.seen.nonces.size).toBe(service.seen.starts + service.seen.ends);

    // A run stops mid-pair: tidy ends what still runs and frees every license for the next run.
    await pairs.tidy((path, body) => service.post(url, path, body));
    expect(service.running.size).toBe(0);
    expect(pairs.free).toBe(16);
    const again = await autocannon({ url, connections: 8, duration: 0.5, requests: pairs.requests });
    expect(again.non2xx).toBe(0);
    expect(service.seen.refused).toBe(0);
  });

  it("a refused start hands its license back and skips the end", async () => {
    const service = fakeService();
    services.push(service);
    const url = await service.start();
    const pool = licenses(2);
    // Someone else runs an execution on the first license the pairs would take.
    await service.post(url, "/api/license/executions", { license_key: pool[1].licenseKey, machine_id: "x" });
    const pairs = startEndPairs(pool);
    const result = await autocannon({ url, connections: 1, amount: 6, requests: pairs.requests });
    expect(result.non2xx).toBeGreaterThanOrEqual(1);
    expect(service.seen.notFound).toBe(0);
    expect(service.seen.ends).toBeGreaterThanOrEqual(1);
  });
});

describe("heartbeats", () => {
  it("spread round-robin over the whole fleet, each with its own license and a fresh nonce", async () => {
    const service = fakeService();
    services.push(service);
    const url = await service.start();
    const fleet = [];
    for (const license of licenses(10)) {
      const started = await service.post(url, "/api/license/executions", {
        license_key: license.licenseKey,
        machine_id: license.machine,
      });
      fleet.push({ ...license, id: started.data.execution.id });
    }
    const result = await autocannon({ url, connections: 4, amount: 200, requests: heartbeatRequests(fleet) });
    expect(result.non2xx).toBe(0);
    expect(service.seen.notFound).toBe(0);
    expect([...service.seen.heartbeats.keys()].sort()).toEqual(fleet.map((lease) => lease.id).sort());
    for (const count of service.seen.heartbeats.values()) expect(count).toBe(20);
    expect(service.seen.nonces.size).toBe(200);
  });
});

describe("percentiles", () => {
  it("p50, p99 and max of what was measured; NaN when nothing was", () => {
    const latencies = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentiles(latencies)).toEqual({ p50: 51, p99: 100, max: 100, count: 100 });
    expect(percentiles([])).toMatchObject({ p50: Number.NaN, p99: Number.NaN, count: 0 });
  });
});
