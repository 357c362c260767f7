/**
 * Live heartbeats written together (decision 0057): heartbeats that arrive in the same turn go to the database as one
 * statement, and each is still answered for its own lease only — another license's or machine's lease is not touched,
 * a stopped or ended one goes to the lock. On PostgreSQL, a lease locked by a decision in progress holds back neither
 * the statement nor the other leases in it.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAliveMany } from "../src/modules/licenses/seats/execution-leases";
import { ageLease } from "./helpers/lease-time";
import { licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp, onPostgres } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const post = (url: string, payload: Record<string, unknown>) => app.inject({ method: "POST", url, payload });

/** A free license with one bound machine running one execution. */
async function running(prefix: string, machine = `${prefix}-machine`) {
  const { key } = await licensedCustomer(app, prefix);
  expect((await post("/api/license/validate", { license_key: key, machine_id: machine })).statusCode).toBe(200);
  const started = await post("/api/license/executions", { license_key: key, machine_id: machine });
  expect(started.statusCode).toBe(200);
  const rows = (await app.database.db.execute(
    sql`select license_id from execution_leases where id = ${started.json().data.execution.id}`,
  )) as unknown as { rows: Array<{ license_id: string }> };
  return {
    key,
    machine,
    id: started.json().data.execution.id as string,
    licenseId: rows.rows[0]!.license_id,
    expiresAt: started.json().data.execution.expires_at as string,
  };
}

const heartbeat = (lease: { key: string; machine: string; id: string }) =>
  post(`/api/license/executions/${lease.id}/heartbeat`, { license_key: lease.key, machine_id: lease.machine });

describe("heartbeats written together", () => {
  it("answers each heartbeat of a burst for its own lease, and only to its own license and machine", async () => {
    const leases = await Promise.all(["burst-a", "burst-b", "burst-c", "burst-d"].map((prefix) => running(prefix)));
    const [a, b, c, d] = leases as [(typeof leases)[0], (typeof leases)[0], (typeof leases)[0], (typeof leases)[0]];
    for (const lease of leases) await ageLease(app, lease.id, 20);
    // d was stopped by its owner: its heartbeat is decided under the lock (EXECUTION_ENDED), not extended.
    await app.database.db.execute(
      sql`update execution_leases set stop_requested_at = now(), end_reason = 'ended_by_owner' where id = ${d.id}`,
    );

    const answers = await Promise.all([
      heartbeat(a),
      heartbeat(b),
      heartbeat(a), // the same lease twice in one burst
      heartbeat(c),
      heartbeat(d),
      heartbeat({ ...b, key: c.key }), // b's lease under another license's key
      heartbeat({ ...c, machine: "someone-else" }), // c's lease from another machine
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 410, 404, 404]);
    for (const [index, lease] of [a, b, a, c].entries()) {
      const data = answers[index]!.json().data;
      expect(data.execution.id).toBe(lease.id);
      expect(data.running).toBe(1);
      // Extended from now, not from the aged expiry.
      expect(Date.parse(data.execution.expires_at)).toBeGreaterThan(Date.parse(lease.expiresAt) - 1_000);
    }
    expect(answers[4]!.json().end_reason).toBe("ended_by_owner");
  });

  it("keepAliveMany answers every input in order: live leases extended, the others null", async () => {
    const a = await running("many-a");
    const b = await running("many-b");
    await ageLease(app, b.id, 10_000); // expired long ago
    const kept = await keepAliveMany(app.database.db, [
      { licenseId: a.licenseId, machineId: a.machine, leaseId: a.id },
      { licenseId: b.licenseId, machineId: b.machine, leaseId: b.id },
      { licenseId: b.licenseId, machineId: a.machine, leaseId: a.id },
      { licenseId: a.licenseId, machineId: a.machine, leaseId: a.id },
    ]);
    expect(kept.map((entry) => entry?.lease.id ?? null)).toEqual([a.id, null, null, a.id]);
    expect(kept[0]).toMatchObject({ running: 1, lease: { licenseId: a.licenseId, machineId: a.machine } });
    expect(kept[0]!.lease.expiresAt).toBeInstanceOf(Date);
    expect(kept[0]!.lease.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(await keepAliveMany(app.database.db, [])).toEqual([]);
  });

  it.runIf(onPostgres)(
    "a lease locked by a decision in progress holds back neither the statement nor the others in it",
    async () => {
      const a = await running("locked-a");
      const b = await running("locked-b");
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      // What the seat lock does: a transaction that holds a's lease row until it commits.
      const decision = app.database.db.transaction(async (tx) => {
        await tx.execute(sql`select id from execution_leases where id = ${a.id} for update`);
        locked();
        await released;
      });
      await isLocked;
      try {
        const kept = await Promise.race([
          keepAliveMany(app.database.db, [
            { licenseId: a.licenseId, machineId: a.machine, leaseId: a.id },
            { licenseId: b.licenseId, machineId: b.machine, leaseId: b.id },
          ]),
          new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 5_000)),
        ]);
        // a is left to the lock (its heartbeat waits there for the decision); b is extended at once.
        expect(kept).not.toBe("waited");
        expect((kept as Awaited<ReturnType<typeof keepAliveMany>>).map((entry) => entry?.lease.id ?? null)).toEqual([
          null,
          b.id,
        ]);
        // Through HTTP, a's heartbeat waits for the decision, then is answered.
        const waiting = heartbeat(a);
        release();
        expect((await waiting).statusCode).toBe(200);
      } finally {
        release();
        await decision;
      }
    },
  );
});
