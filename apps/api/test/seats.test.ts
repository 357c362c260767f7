/**
 * Seats that manage themselves, keys and files, answers that cannot be tampered with (issue 15) — each rule from
 * the honest app's side and from the side of someone passing a key around, rewriting an answer or a file.
 */
import { createDecipheriv, createHash, createPublicKey, verify } from "node:crypto";
import { LICENSE_FILE_AAD, licenseFileKey } from "@flotilla/contracts/license-file";
import { NONCE_HEADER, SEAT_RULES, SIGNATURE_HEADER, signingInput } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cullingJob } from "../src/jobs/culling";
import { retentionJob } from "../src/jobs/retention";
import { runExclusively } from "../src/jobs/scheduler";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const licensed = () => licensedCustomer(app, "seats", { offlineFiles: true });
const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url, payload: payload as Record<string, unknown>, headers });
const validate = (key: string, machine: string, extra: Record<string, unknown> = {}) =>
  post("/api/license/validate", { license_key: key, machine_id: machine, ...extra });
const heartbeat = (key: string, machine: string) =>
  post("/api/license/heartbeat", { license_key: key, machine_id: machine });
const deactivate = (key: string, machine: string) =>
  post("/api/license/deactivate", { license_key: key, machine_id: machine });

/** Runs the culling job as if it were `at` (one runner; invalidates what it changed). */
async function cullAt(at: Date) {
  // The counter flush locks the licenses it writes last-seen times to, and the job skips a locked license (it culls
  // it next round): on PostgreSQL a flush of this test's own validations, due at that moment, made the cull skip the
  // license and the test fail now and then. Written first, nothing of this test is in flight when the job runs.
  await app.licensing.recorder.flush();
  const job = cullingJob(app.licensing.seats);
  return runExclusively(app.database.db, job, at);
}
const FREE_SILENCE_MS = (TIERS.free.heartbeatIntervalSeconds + SEAT_RULES.driftAllowanceSeconds) * 1000;
const later = (ms: number) => new Date(Date.now() + ms);

async function machinesOf(token: string, key: string) {
  const response = await app.inject({ method: "GET", url: `/api/license/machines/${key}`, headers: bearer(token) });
  return response.json().data;
}

describe("heartbeats and culling", () => {
  it("a heartbeat keeps an activated machine's slot and says when to send the next", async () => {
    const { key } = await licensed();
    await validate(key, "hb-one");
    const answer = (await heartbeat(key, "hb-one")).json().data;
    expect(answer).toMatchObject({
      valid: true,
      code: "VALID",
      heartbeat_interval_seconds: TIERS.free.heartbeatIntervalSeconds,
    });
    expect(answer.token).toEqual(expect.any(String));
  });

  it("a heartbeat never activates a machine the license does not know", async () => {
    const { token, key } = await licensed();
    await validate(key, "hb-known");
    const answer = (await heartbeat(key, "hb-stranger")).json().data;
    expect(answer).toMatchObject({ valid: false, code: "NOT_ACTIVATED", token: null });
    expect((await machinesOf(token, key)).machines.map((m: { machine_id: string }) => m.machine_id)).toEqual([
      "hb-known",
    ]);
  });

  it("a machine silent past its window plus the drift allowance loses its slot; one just inside keeps it", async () => {
    const { token, key } = await licensed();
    await validate(key, "quiet-1");
    expect((await cullAt(later(FREE_SILENCE_MS - 30_000))).ran).toBe(true);
    expect((await machinesOf(token, key)).machines[0]).toMatchObject({ status: "active", inactive_since: null });

    await cullAt(later(FREE_SILENCE_MS + 30_000));
    const list = await machinesOf(token, key);
    expect(list.current_count).toBe(0);
    expect(list.machines[0]).toMatchObject({
      machine_id: "quiet-1",
      status: "inactive",
      inactive_since: expect.any(String),
    });
    expect(list.seat_rules).toEqual({
      heartbeat_interval_seconds: TIERS.free.heartbeatIntervalSeconds,
      inactive_after_seconds: TIERS.free.heartbeatIntervalSeconds + SEAT_RULES.driftAllowanceSeconds,
      revival_window_seconds: SEAT_RULES.revivalWindowSeconds,
    });
  });

  it("the freed slot goes to another machine; the silent one revives when a slot is free again", async () => {
    const { token, key } = await licensed();
    for (const machine of ["r-1", "r-2", "r-3"]) expect((await validate(key, machine)).json().data.code).toBe("VALID");
    expect((await validate(key, "r-4")).json().data.code).toBe("TOO_MANY_MACHINES");
    // r-1..r-3 go silent; the cache, filled before, must not hide the cull (the job invalidates what it changed).
    await cullAt(later(FREE_SILENCE_MS + 60_000));
    expect((await validate(key, "r-4")).json().data.code).toBe("VALID");
    expect((await heartbeat(key, "r-1")).json().data.code).toBe("VALID");
    expect((await heartbeat(key, "r-2")).json().data.code).toBe("VALID");
    // Full again (r-4, r-1, r-2): r-3 is back too late for a slot.
    expect((await heartbeat(key, "r-3")).json().data.code).toBe("TOO_MANY_MACHINES");
    const list = await machinesOf(token, key);
    expect(list.current_count).toBe(3);
    expect(list.machines.find((m: { machine_id: string }) => m.machine_id === "r-3").status).toBe("inactive");
  });

  it("an inactive machine not back within the revival window is forgotten; the primary role moves on", async () => {
    const { token, key } = await licensed();
    await validate(key, "old-primary");
    await cullAt(later(FREE_SILENCE_MS + 60_000));
    await validate(key, "newcomer");
    await cullAt(later(SEAT_RULES.revivalWindowSeconds * 1000 + FREE_SILENCE_MS + 120_000));
    const list = await machinesOf(token, key);
    expect(list.machines.map((m: { machine_id: string }) => m.machine_id)).not.toContain("old-primary");
  });

  it("two runners at once: one culls, the other skips (advisory lock)", async () => {
    const { key } = await licensed();
    await validate(key, "raced");
    const at = later(FREE_SILENCE_MS + 60_000);
    const outcomes = await Promise.all([cullAt(at), cullAt(at)]);
    // On PGlite the two transactions run one after the other; on PostgreSQL one of them skips. Either way the
    // machine is culled exactly once.
    expect(outcomes.some((outcome) => outcome.ran)).toBe(true);
    const events = (await app.database.db.execute(
      sql`select count(*)::int as n from machine_events where machine_id = 'raced' and kind = 'culled'`,
    )) as unknown as { rows: { n: number }[] };
    expect(events.rows[0]!.n).toBe(1);
  });
});

describe("deactivation from the app, and the caps that stop a key being passed around", () => {
  it("the app frees its own slot; the machine can activate again", async () => {
    const { token, key } = await licensed();
    await validate(key, "leaving");
    const answer = await deactivate(key, "leaving");
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data).toEqual({ deactivated: true, deactivations_left: SEAT_RULES.deactivationsPerDay - 1 });
    expect((await machinesOf(token, key)).machines).toHaveLength(0);
    expect((await heartbeat(key, "leaving")).json().data.code).toBe("NOT_ACTIVATED");
    expect((await validate(key, "leaving")).json().data.code).toBe("VALID");
  });

  it("a machine that holds no slot cannot be deactivated (NOT_ACTIVATED), and an unknown key is NOT_FOUND", async () => {
    const { key } = await licensed();
    const stranger = await deactivate(key, "never-seen");
    expect(stranger.statusCode).toBe(404);
    expect(stranger.json()).toMatchObject({ success: false, code: "NOT_ACTIVATED" });
    const unknown = await deactivate("FLOT-AAAAA-BBBBB-CCCCC-DDDDD-EEEEE", "x");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe("NOT_FOUND");
  });

  it(`the deactivation after ${SEAT_RULES.deactivationsPerDay} in a day is refused with DEACTIVATION_LIMIT`, async () => {
    const { key } = await licensed();
    for (let round = 0; round < SEAT_RULES.deactivationsPerDay; round++) {
      expect((await validate(key, "ping-pong")).json().data.code).toBe("VALID");
      expect((await deactivate(key, "ping-pong")).statusCode).toBe(200);
    }
    await validate(key, "ping-pong");
    const refused = await deactivate(key, "ping-pong");
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ success: false, code: "DEACTIVATION_LIMIT" });
    // Retry-After says when the cap frees up (24 hours after the oldest deactivation), so clients do not hammer it.
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(86_400 - 120);
    // The machine keeps its slot: a refused deactivation changes nothing.
    expect((await heartbeat(key, "ping-pong")).json().data.code).toBe("VALID");
  });

  it("concurrent deactivations cannot overrun the cap", async () => {
    const { key } = await licensed();
    const crowd = Array.from({ length: 3 }, (_, i) => `crowd-${i}`);
    for (const machine of crowd) await validate(key, machine);
    // Use up all but one of the day's deactivations, then race three for the last one.
    for (let round = 0; round < SEAT_RULES.deactivationsPerDay - 1; round++) {
      await deactivate(key, crowd[0]!);
      await validate(key, crowd[0]!);
    }
    const answers = await Promise.all(crowd.map((machine) => deactivate(key, machine)));
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.statusCode === 429)).toHaveLength(2);
  });

  it(`new machines past ${SEAT_RULES.activationsPerDay} in a day are refused with ACTIVATION_LIMIT`, async () => {
    const { token, key } = await licensed();
    // The owner frees slots by removal (not capped): new machines still count against the activation cap.
    for (let n = 0; n < SEAT_RULES.activationsPerDay; n++) {
      expect((await validate(key, `wave-${n}`)).json().data.code).toBe("VALID");
      if (n > 0) {
        const removed = await app.inject({
          method: "DELETE",
          url: `/api/license/machines/${key}/wave-${n}`,
          headers: bearer(token),
        });
        expect(removed.statusCode).toBe(200);
      }
    }
    const refused = (await validate(key, "wave-late")).json().data;
    expect(refused).toMatchObject({ valid: false, code: "ACTIVATION_LIMIT", token: null });
    // A machine already bound is not new: it keeps validating.
    expect((await validate(key, "wave-0")).json().data.code).toBe("VALID");
  });
});

describe("machine limit reached: the owner hears of it", () => {
  it("a refused device is named on the dashboard until dismissed or let in", async () => {
    const { token, key } = await licensed();
    for (const machine of ["full-1", "full-2", "full-3"]) await validate(key, machine);
    await validate(key, "refused-one", { machine_name: "Grace's MacBook", platform: "macos" });
    const dashboard = async () =>
      (await app.inject({ method: "GET", url: "/api/customer/dashboard", headers: bearer(token) })).json().data
        .licenses[0];
    expect((await dashboard()).refused_activations).toEqual([
      expect.objectContaining({ machine_id: "refused-one", machine_name: "Grace's MacBook", platform: "macos" }),
    ]);
    // One click frees a slot (remove a device); the refused one gets in and the notice goes.
    await app.inject({ method: "DELETE", url: `/api/license/machines/${key}/full-3`, headers: bearer(token) });
    expect((await validate(key, "refused-one")).json().data.code).toBe("VALID");
    expect((await dashboard()).refused_activations).toEqual([]);

    await validate(key, "refused-two");
    expect((await dashboard()).refused_activations).toHaveLength(1);
    const dismissed = await app.inject({
      method: "DELETE",
      url: `/api/customer/licenses/${key}/refusals`,
      headers: bearer(token),
    });
    expect(dismissed.statusCode).toBe(200);
    expect((await dashboard()).refused_activations).toEqual([]);
  });

  it("a crowd of refused devices keeps only the latest few", async () => {
    const { key } = await licensed();
    for (const machine of ["crowd-a", "crowd-b", "crowd-c"]) await validate(key, machine);
    for (let n = 0; n < SEAT_RULES.refusalsKept + 15; n++) await validate(key, `outsider-${n}`);
    const kept = (await app.database.db.execute(
      sql`select count(*)::int as n from activation_refusals r join licenses l on l.id = r.license_id where l.license_key = ${key}`,
    )) as unknown as { rows: { n: number }[] };
    expect(kept.rows[0]!.n).toBe(SEAT_RULES.refusalsKept);
  });

  it("another customer cannot read or dismiss the notice", async () => {
    const { key } = await licensed();
    const { token: stranger } = await licensed();
    const answer = await app.inject({
      method: "DELETE",
      url: `/api/customer/licenses/${key}/refusals`,
      headers: bearer(stranger),
    });
    expect(answer.statusCode).toBe(404);
  });
});

describe("key rotation", () => {
  it("the new key is shown once, machines keep their slots with it, the old key works only through its grace", async () => {
    const { token, key } = await licensed();
    await validate(key, "rot-1");
    await validate(key, "rot-2");
    // Fill the cache with the old key's state: rotation must reach it.
    expect((await validate(key, "rot-1")).json().data.code).toBe("VALID");
    const rotated = await app.inject({
      method: "POST",
      url: `/api/customer/licenses/${key}/rotate`,
      headers: bearer(token),
    });
    expect(rotated.statusCode).toBe(200);
    const { license, previous_key_valid_until } = rotated.json().data;
    expect(license.license_key).not.toBe(key);
    const grace = new Date(previous_key_valid_until).getTime() - Date.now();
    expect(grace).toBeGreaterThan((SEAT_RULES.keyRotationGraceSeconds - 60) * 1000);
    expect(grace).toBeLessThanOrEqual(SEAT_RULES.keyRotationGraceSeconds * 1000);

    // Same slots with the new key; no third slot used.
    expect((await validate(license.license_key, "rot-1")).json().data).toMatchObject({
      code: "VALID",
      machine: { is_primary: true },
    });
    expect((await machinesOf(token, license.license_key)).current_count).toBe(2);
    // The old key still works within the grace…
    expect((await heartbeat(key, "rot-2")).json().data.code).toBe("VALID");
    // …for the machines that hold a slot: it activates nothing new.
    expect((await validate(key, "rot-newcomer")).json().data).toMatchObject({ code: "NOT_FOUND", token: null });
    expect((await machinesOf(token, license.license_key)).current_count).toBe(2);
    // …and not after it, even from a cache filled during the grace (the clock moves past the grace)…
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(new Date(previous_key_valid_until).getTime() + 1000);
      for (const call of [() => validate(key, "rot-2"), () => heartbeat(key, "rot-2")]) {
        expect((await call()).json().data).toMatchObject({ valid: false, code: "NOT_FOUND", token: null });
      }
    } finally {
      vi.useRealTimers();
    }
    // …nor from the database once the grace has ended there.
    await app.database.db.execute(
      sql`update license_key_aliases set valid_until = now() - interval '1 second' where license_key = ${key}`,
    );
    app.licensing.cache.invalidate(key);
    expect((await validate(key, "rot-2")).json().data).toMatchObject({ valid: false, code: "NOT_FOUND", token: null });
    expect((await deactivate(key, "rot-2")).statusCode).toBe(404);
    // The customer's old key no longer names their license in the customer API either.
    const oldList = await app.inject({ method: "GET", url: `/api/license/machines/${key}`, headers: bearer(token) });
    expect(oldList.statusCode).toBe(404);
  });

  it("only the owner can rotate", async () => {
    const { key } = await licensed();
    const { token: stranger } = await licensed();
    const answer = await app.inject({
      method: "POST",
      url: `/api/customer/licenses/${key}/rotate`,
      headers: bearer(stranger),
    });
    expect(answer.statusCode).toBe(404);
    expect((await validate(key, "mine")).json().data.code).toBe("VALID");
  });
});

function openFile(file: { iv: string; ciphertext: string; tag: string }, key: string, machine: string): string {
  const decipher = createDecipheriv("aes-256-gcm", licenseFileKey(key, machine), Buffer.from(file.iv, "base64url"));
  decipher.setAAD(LICENSE_FILE_AAD);
  decipher.setAuthTag(Buffer.from(file.tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(file.ciphertext, "base64url")), decipher.final()]).toString("utf8");
}

describe("license files", () => {
  it("checkout writes a signed token encrypted to the key and machine, for the asked time", async () => {
    const { key } = await licensed();
    await validate(key, "offline-box");
    const answer = await post("/api/license/checkout", {
      license_key: key,
      machine_id: "offline-box",
      ttl_seconds: 10 * 86400,
    });
    expect(answer.statusCode).toBe(200);
    const file = answer.json().data.license_file;
    expect(file.format).toBe("flotilla-license-file/1");
    const token = openFile(file, key, "offline-box");
    const claims = decodeJwt(token);
    expect(decodeProtectedHeader(token).kid).toBe(file.kid);
    expect(claims).toMatchObject({ typ: "license-file", lic: key, mid: "offline-box", tier: "free" });
    expect((claims.exp as number) - (claims.iat as number)).toBe(10 * 86400);
    // Another machine (or another key) cannot open it.
    expect(() => openFile(file, key, "other-box")).toThrow();
    // One character changed (a ciphertext that begins with "A" already gets a "B": 1 run in 64 changed nothing).
    const altered = `${file.ciphertext.startsWith("A") ? "B" : "A"}${file.ciphertext.slice(1)}`;
    expect(() => openFile({ ...file, ciphertext: altered }, key, "offline-box")).toThrow();
  });

  it("a file never outlasts the maximum; a machine without a slot gets none", async () => {
    const { key } = await licensed();
    await validate(key, "greedy");
    const tooLong = await post("/api/license/checkout", {
      license_key: key,
      machine_id: "greedy",
      ttl_seconds: 400 * 86400,
    });
    expect(tooLong.statusCode).toBe(400);
    const stranger = await post("/api/license/checkout", { license_key: key, machine_id: "stranger" });
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().code).toBe("NOT_ACTIVATED");
  });

  it("an air-gapped machine is activated by exchanging a request file for a license file", async () => {
    const { token, key } = await licensed();
    const request = {
      format: "flotilla-activation-request/1",
      license_key: key,
      machine_id: "air-gapped",
      machine_name: "Lab box",
      platform: "linux",
      created_at: new Date().toISOString(),
    };
    const answer = await post("/api/license/offline-activations", { request });
    expect(answer.statusCode).toBe(200);
    const data = answer.json().data;
    expect(data.code).toBe("VALID");
    const claims = decodeJwt(openFile(data.license_file, key, "air-gapped"));
    expect(claims).toMatchObject({ mid: "air-gapped", typ: "license-file" });
    expect((claims.exp as number) - (claims.iat as number)).toBe(SEAT_RULES.licenseFileDefaultTtlSeconds);
    expect((await machinesOf(token, key)).machines[0]).toMatchObject({
      machine_id: "air-gapped",
      machine_name: "Lab box",
    });
  });
});

describe("license files hold their slot", () => {
  it("a machine with an outstanding license file is never culled, so files cannot multiply a license's seats", async () => {
    const { token, key } = await licensed();
    const request = (machine: string) => ({
      format: "flotilla-activation-request/1",
      license_key: key,
      machine_id: machine,
      created_at: new Date().toISOString(),
    });
    for (const machine of ["lab-1", "lab-2", "lab-3"]) {
      const answer = await post("/api/license/offline-activations", {
        request: request(machine),
        ttl_seconds: 90 * 86400,
      });
      expect(answer.json().data.code).toBe("VALID");
    }
    // Silent for a month (air-gapped machines never send heartbeats): their files still work, so the slots stay taken.
    await cullAt(later(30 * 86400 * 1000));
    expect((await machinesOf(token, key)).current_count).toBe(3);
    const fourth = await post("/api/license/offline-activations", { request: request("lab-4") });
    expect(fourth.json().data).toMatchObject({ code: "TOO_MANY_MACHINES", license_file: null });
    // After the files expire the rule applies again.
    await cullAt(later(91 * 86400 * 1000));
    expect((await machinesOf(token, key)).current_count).toBe(0);
  });

  it("the app cannot deactivate a machine whose license file still works (a copy would keep running)", async () => {
    const { key } = await licensed();
    await validate(key, "leased");
    expect((await post("/api/license/checkout", { license_key: key, machine_id: "leased" })).statusCode).toBe(200);
    const refused = await deactivate(key, "leased");
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ success: false, code: "LICENSE_FILE_ACTIVE" });
    expect((await heartbeat(key, "leased")).json().data.code).toBe("VALID");
  });
});

describe("every seat change is audited and announced, in the same transaction", () => {
  async function events(key: string, type: string) {
    const result = (await app.database.db.execute(sql`
      select a.type, a.target_id, a.after, (select count(*)::int from outbox o where o.event_id = a.id and o.channel = 'email') as mails,
        (select o.payload->'data'->'after' from outbox o where o.event_id = a.id and o.channel = 'email' limit 1) as mail_after
      from audit_events a join licenses l on l.id = a.license_id
      where a.type = ${type} and (l.license_key = ${key} or a.license_id in (
        select license_id from license_key_aliases where license_key = ${key}))
      order by a.seq`)) as unknown as {
      rows: {
        type: string;
        target_id: string;
        after: Record<string, unknown>;
        mails: number;
        mail_after: Record<string, unknown> | null;
      }[];
    };
    return result.rows;
  }

  it("culled, deactivated, key rotated; a full license mails its owner once per notice, not once per refusal", async () => {
    const { token, key } = await licensed();
    for (const machine of ["aud-1", "aud-2", "aud-3"]) await validate(key, machine);
    for (const outsider of ["out-1", "out-2", "out-3"])
      await validate(key, outsider, { machine_name: `Outsider ${outsider}` });
    const full = await events(key, "license.machine_limit_reached");
    expect(full).toHaveLength(1);
    // The device's name is in the owner's mail; the append-only log keeps no names (decision 0046).
    expect(full[0]).toMatchObject({
      mails: 1,
      after: { max_machines: 3 },
      mail_after: { machine_name: "Outsider out-1" },
    });
    expect(full[0]!.after).not.toHaveProperty("machine_name");

    await deactivate(key, "aud-3");
    expect((await events(key, "machine.deactivated")).map((e) => e.target_id)).toEqual(["aud-3"]);
    await cullAt(later(FREE_SILENCE_MS + 60_000));
    // A cull is a machine event and a line in the batch's summary, not an audit row per machine (decision 0058).
    expect(await events(key, "machine.culled")).toEqual([]);
    const culled = (await app.database.db.execute(sql`
      select e.machine_id from machine_events e join licenses l on l.id = e.license_id
      where e.kind = 'culled' and l.license_key = ${key} order by e.machine_id`)) as unknown as {
      rows: { machine_id: string }[];
    };
    expect(culled.rows.map((row) => row.machine_id)).toEqual(["aud-1", "aud-2"]);
    const summary = (await app.database.db.execute(
      sql`select after from audit_events where type = 'machines.culled' order by seq desc limit 1`,
    )) as unknown as { rows: { after: { culled: number } }[] };
    expect(summary.rows[0]!.after.culled).toBeGreaterThanOrEqual(2);

    await app.inject({ method: "POST", url: `/api/customer/licenses/${key}/rotate`, headers: bearer(token) });
    const rotated = await events(key, "license.key_rotated");
    expect(rotated).toHaveLength(1);
    expect(rotated[0]!.mails).toBe(1);
    // The audit log and the mail carry a hint of the key, never the key.
    const stored = JSON.stringify(
      (
        (await app.database.db.execute(sql`select payload from outbox where channel = 'email'`)) as unknown as {
          rows: unknown[];
        }
      ).rows,
    );
    const newKey = (await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).json().data
      .licenses[0].license_key;
    expect(stored).not.toContain(newKey);
    expect(JSON.stringify(rotated)).not.toContain(newKey);
  });
});

describe("retention of what the seats and the outbox add", () => {
  it("machine events after 30 days, rotated keys a day after their grace, finished outbox rows and mail logs", async () => {
    const { token, key } = await licensed();
    await validate(key, "ret-1");
    await deactivate(key, "ret-1");
    await validate(key, "ret-2");
    await app.inject({ method: "POST", url: `/api/customer/licenses/${key}/rotate`, headers: bearer(token) });
    const [{ n: eventsBefore } = { n: 0 }] = (
      (await app.database.db.execute(sql`select count(*)::int as n from machine_events`)) as unknown as {
        rows: { n: number }[];
      }
    ).rows;
    expect(eventsBefore).toBeGreaterThan(0);
    const db = app.database.db;
    await db.execute(sql`update machine_events set at = now() - interval '31 days'`);
    await db.execute(
      sql`update license_key_aliases set valid_until = now() - interval '2 days' where license_key = ${key}`,
    );
    await db.execute(sql`update outbox set status = 'delivered', finished_at = now() - interval '31 days'`);
    await db.execute(
      sql`insert into dev_mail (event_id, recipient, subject, text, html, headers, created_at)
          values (gen_random_uuid(), 'old@example.com', 's', 't', 'h', '{}'::jsonb, now() - interval '8 days'),
                 (gen_random_uuid(), 'new@example.com', 's', 't', 'h', '{}'::jsonb, now())`,
    );
    expect((await app.jobs.runNow(retentionJob))?.ran).toBe(true);
    const left = async (query: ReturnType<typeof sql>) =>
      ((await db.execute(query)) as unknown as { rows: { n: number }[] }).rows[0]!.n;
    expect(await left(sql`select count(*)::int as n from machine_events`)).toBe(0);
    expect(await left(sql`select count(*)::int as n from license_key_aliases where license_key = ${key}`)).toBe(0);
    expect(await left(sql`select count(*)::int as n from outbox`)).toBe(0);
    expect(await left(sql`select count(*)::int as n from dev_mail`)).toBe(1);
    // The audit log itself is kept (append-only).
    expect(await left(sql`select count(*)::int as n from audit_events`)).toBeGreaterThan(0);
  });
});

describe("signed answers", () => {
  let publicKey: ReturnType<typeof createPublicKey>;
  let kid: string;
  beforeAll(async () => {
    const data = (await app.inject({ method: "GET", url: "/api/license/public-key" })).json().data;
    publicKey = createPublicKey({ key: data.jwk, format: "jwk" });
    kid = data.kid;
  });

  function check(
    response: Awaited<ReturnType<typeof post>>,
    method: string,
    path: string,
    nonce: string | null,
    sentNonce: string | null = nonce,
  ) {
    const header = response.headers[SIGNATURE_HEADER];
    expect(header, `${path} is signed`).toEqual(expect.any(String));
    const fields = Object.fromEntries(
      [...String(header).matchAll(/(\w+)=(?:"([^"]*)"|(\d+))/g)].map((m) => [m[1], m[2] ?? m[3]]),
    );
    expect(fields).toMatchObject({ keyid: kid, alg: "ed25519", nonce: sentNonce ?? "-" });
    expect(Math.abs(Number(fields.created) - Date.now() / 1000)).toBeLessThan(5);
    const input = (body: string) =>
      signingInput({
        method,
        path,
        created: Number(fields.created),
        nonce,
        bodyDigest: createHash("sha256").update(body).digest("base64"),
      });
    const signature = Buffer.from(fields.signature!, "base64url");
    return {
      valid: verify(null, Buffer.from(input(response.body)), publicKey, signature),
      /** The same signature over an answer someone rewrote. */
      validFor: (body: string) => verify(null, Buffer.from(input(body)), publicKey, signature),
    };
  }

  it("every desktop answer — valid, refused or an error — carries a signature over its exact bytes and the nonce", async () => {
    const { key } = await licensed();
    const nonce = "n0nce-for-this-call-1234";
    const calls: [string, Record<string, unknown>][] = [
      ["/api/license/validate", { license_key: key, machine_id: "signed-1" }],
      ["/api/license/heartbeat", { license_key: key, machine_id: "signed-1" }],
      ["/api/license/usage", { license_key: key, machine_id: "signed-1", executions: 2 }],
      ["/api/license/checkout", { license_key: key, machine_id: "signed-1" }],
      ["/api/license/deactivate", { license_key: key, machine_id: "nobody" }],
      ["/api/license/validate", { license_key: "FLOT-AAAAA-BBBBB-CCCCC-DDDDD-EEEEE", machine_id: "x" }],
      ["/api/license/validate", { license_key: key }],
    ];
    for (const [path, body] of calls) {
      const response = await post(path, body, { [NONCE_HEADER]: nonce });
      expect(response.headers["content-encoding"]).toBeUndefined();
      expect(check(response, "POST", path, nonce).valid, `${path} ${response.statusCode}`).toBe(true);
    }
  });

  it("a proxy that turns SUSPENDED into VALID, or replays an answer to another call, breaks the signature", async () => {
    const { key } = await licensed();
    await validate(key, "tampered");
    await app.database.db.execute(sql`update licenses set status = 'suspended' where license_key = ${key}`);
    await app.licensing.changed(key);
    const response = await post(
      "/api/license/validate",
      { license_key: key, machine_id: "tampered" },
      { [NONCE_HEADER]: "first-nonce-1234" },
    );
    expect(response.json().data.code).toBe("SUSPENDED");
    const forged = response.body.replace('"valid":false', '"valid":true').replace('"SUSPENDED"', '"VALID"');
    const signed = check(response, "POST", "/api/license/validate", "first-nonce-1234");
    expect(signed.valid).toBe(true);
    expect(signed.validFor(forged)).toBe(false);
    // Replayed to a call with another nonce, or to another path, it does not verify.
    expect(check(response, "POST", "/api/license/validate", "another-nonce-5678", "first-nonce-1234").valid).toBe(
      false,
    );
    expect(check(response, "POST", "/api/license/heartbeat", "first-nonce-1234").valid).toBe(false);
  });

  it("a nonce that is not header-safe is not echoed", async () => {
    const { key } = await licensed();
    const response = await post(
      "/api/license/validate",
      { license_key: key, machine_id: "n" },
      { [NONCE_HEADER]: 'x", signature="forged' },
    );
    expect(String(response.headers[SIGNATURE_HEADER])).toContain('nonce="-"');
  });
});
