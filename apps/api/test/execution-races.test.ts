/**
 * The concurrency limit under races (issue 26): starts fired together from every machine of a free license, and a
 * revival racing a start, never leave more than one execution running. On PGlite these pass trivially (one statement
 * at a time); on PostgreSQL (api-postgres) the requests run side by side on a pool of connections.
 */
import { executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp, onPostgres } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const ROUNDS = onPostgres
  ? Number(process.env.FLOTILLA_RACE_ROUNDS ?? (process.env.FLOTILLA_STRESS === "1" ? 1_000 : 150))
  : 5;
const MACHINES = ["race-a", "race-b", "race-c"];
const STARTS_PER_MACHINE = 3;

const post = (url: string, payload: Record<string, unknown>) => app.inject({ method: "POST", url, payload });

/** Running leases of the license, decided by the database (not by what the answers said). */
async function runningIn(key: string): Promise<number> {
  const result = (await app.database.db.execute(sql`
    select count(*)::int as n from execution_leases e
    join licenses l on l.id = e.license_id
    join machines m on m.license_id = e.license_id and m.machine_id = e.machine_id and m.status = 'active'
    where l.license_key = ${key} and e.ended_at is null and e.expires_at > clock_timestamp()`)) as unknown as {
    rows: { n: number }[];
  };
  return result.rows[0]!.n;
}

async function expire(id: string) {
  await app.database.db.execute(sql`
    update execution_leases set
      last_heartbeat_at = last_heartbeat_at - make_interval(secs => ${executionExpiresAfterSeconds() + 1}),
      expires_at = expires_at - make_interval(secs => ${executionExpiresAfterSeconds() + 1})
    where id = ${id}`);
}

describe(`a free license never runs two executions (${ROUNDS} rounds${onPostgres ? " on PostgreSQL" : ""})`, () => {
  it("starts fired together from three machines: exactly one wins, every round", { timeout: 600_000 }, async () => {
    const { key } = await licensedCustomer(app, "exec-race");
    for (const machine of MACHINES) {
      const bound = await post("/api/license/validate", { license_key: key, machine_id: machine });
      expect(bound.json().data.code).toBe("VALID");
    }
    let refusals = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const answers = await Promise.all(
        MACHINES.flatMap((machine) =>
          Array.from({ length: STARTS_PER_MACHINE }, () =>
            post("/api/license/executions", { license_key: key, machine_id: machine }),
          ),
        ),
      );
      const won = answers.filter((answer) => answer.statusCode === 200);
      refusals += answers.filter((answer) => answer.statusCode === 409).length;
      expect(won, `round ${round}: ${answers.map((a) => a.statusCode).join(",")}`).toHaveLength(1);
      expect(await runningIn(key)).toBe(1);
      const winner = won[0]!.json().data.execution.id as string;
      const machine = MACHINES.find((_, index) =>
        answers
          .slice(index * STARTS_PER_MACHINE, (index + 1) * STARTS_PER_MACHINE)
          .some((answer) => answer.statusCode === 200),
      )!;
      // Half the rounds end it; the other half let it go silent, which must free the slot just the same.
      if (round % 2 === 0) {
        expect(
          (await post(`/api/license/executions/${winner}/end`, { license_key: key, machine_id: machine })).statusCode,
        ).toBe(200);
      } else {
        await expire(winner);
      }
      expect(await runningIn(key)).toBe(0);
    }
    expect(refusals).toBe(ROUNDS * (MACHINES.length * STARTS_PER_MACHINE - 1));
  });

  it("an expired lease coming back races new starts: at most one runs", { timeout: 600_000 }, async () => {
    const { key } = await licensedCustomer(app, "exec-revive-race");
    for (const machine of MACHINES) {
      await post("/api/license/validate", { license_key: key, machine_id: machine });
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      const first = await post("/api/license/executions", { license_key: key, machine_id: "race-a" });
      expect(first.statusCode, `round ${round}`).toBe(200);
      const id = first.json().data.execution.id as string;
      await expire(id);
      const answers = await Promise.all([
        post(`/api/license/executions/${id}/heartbeat`, { license_key: key, machine_id: "race-a" }),
        post("/api/license/executions", { license_key: key, machine_id: "race-b" }),
        post("/api/license/executions", { license_key: key, machine_id: "race-c" }),
      ]);
      const alive = answers.filter((answer) => answer.statusCode === 200);
      expect(alive, `round ${round}: ${answers.map((a) => a.statusCode).join(",")}`).toHaveLength(1);
      expect(await runningIn(key)).toBe(1);
      // Clear the round: end whatever runs.
      await app.database.db.execute(sql`
        update execution_leases set ended_at = clock_timestamp(), end_reason = 'completed'
        where ended_at is null and license_id = (select id from licenses where license_key = ${key})`);
    }
  });
  it.runIf(onPostgres)(
    "a heartbeat in flight as its lease expires: a start waits for it, and counts the lease it extended",
    { timeout: 60_000 },
    async () => {
      const { key } = await licensedCustomer(app, "exec-expiry-race");
      for (const machine of MACHINES) await post("/api/license/validate", { license_key: key, machine_id: machine });
      const first = await post("/api/license/executions", { license_key: key, machine_id: "race-a" });
      const id = first.json().data.execution.id as string;
      // The lease expires in 300 ms. Its heartbeat (keepAlive's write, no license lock) extends it just before, and
      // is still in flight — its transaction not yet committed — when another machine starts after the expiry.
      await app.database.db.execute(
        sql`update execution_leases set expires_at = clock_timestamp() + interval '300 milliseconds' where id = ${id}`,
      );
      let commit!: () => void;
      const committed = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => {
        wrote = resolve;
      });
      const heartbeat = app.database.db.transaction(async (tx) => {
        await tx.execute(sql`
          update execution_leases set last_heartbeat_at = clock_timestamp(),
            expires_at = clock_timestamp() + make_interval(secs => ${executionExpiresAfterSeconds()})
          where id = ${id} and ended_at is null and expires_at > clock_timestamp()`);
        wrote();
        await committed;
      });
      await written;
      await new Promise((resolve) => setTimeout(resolve, 400)); // the lease's old expiry has passed
      const start = post("/api/license/executions", { license_key: key, machine_id: "race-b" });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the start is deciding (or waiting)
      commit();
      await heartbeat;
      const answer = await start;
      // It waited for the heartbeat and saw the lease it extended: refused, and one execution runs.
      expect(answer.statusCode, answer.body).toBe(409);
      expect(await runningIn(key)).toBe(1);
    },
  );
});
