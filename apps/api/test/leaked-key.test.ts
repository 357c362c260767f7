/**
 * A leaked key (launch review 2, major 2): whoever holds it could bind machines into the free slots and check out
 * 90-day license files, and after the owner rotated the key they still could not free those slots. The remedy
 * (decision 0036): license files need the owner's consent, and the owner (capped) and an admin can revoke a machine,
 * which frees its slot and bars it while its file may still run offline until it expires.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { allowOfflineFiles, bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "leak.support@example.com";
let app: FastifyInstance;
let close: () => Promise<void>;
let admin: string;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false, adminEmails: [ADMIN] }));
  admin = (await devSignIn(app, { email: ADMIN, name: "Leak Support" })).token;
});
afterAll(() => close());

const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url, payload, headers });
const validate = (key: string, machine: string) =>
  post("/api/license/validate", { license_key: key, machine_id: machine });
const checkout = (key: string, machine: string) =>
  post("/api/license/checkout", { license_key: key, machine_id: machine, ttl_seconds: 90 * 86_400 });
const offlineActivation = (key: string, machine: string) =>
  post("/api/license/offline-activations", {
    request: {
      format: "flotilla-activation-request/1",
      license_key: key,
      machine_id: machine,
      created_at: new Date().toISOString(),
    },
    ttl_seconds: 90 * 86_400,
  });
const revoke = (token: string, key: string, machine: string) =>
  post(`/api/license/machines/${key}/${machine}/revoke`, {}, bearer(token));
const remove = (token: string, key: string, machine: string) =>
  app.inject({ method: "DELETE", url: `/api/license/machines/${key}/${machine}`, headers: bearer(token) });
const machinesOf = async (token: string, key: string) =>
  (await app.inject({ method: "GET", url: `/api/license/machines/${key}`, headers: bearer(token) })).json().data;
async function rotate(token: string, key: string): Promise<string> {
  const answer = await post(`/api/customer/licenses/${key}/rotate`, {}, bearer(token));
  expect(answer.statusCode).toBe(200);
  return answer.json().data.license.license_key;
}

describe("license files need the owner's consent", () => {
  it("off by default: a key alone checks out no file and activates nothing offline", async () => {
    const { token, key } = await licensedCustomer(app, "leak-consent");
    expect((await validate(key, "thief-1")).json().data.code).toBe("VALID");
    const file = await checkout(key, "thief-1");
    expect(file.statusCode).toBe(403);
    expect(file.json()).toMatchObject({ code: "LICENSE_FILES_DISABLED" });
    const offline = await offlineActivation(key, "thief-2");
    expect(offline.json().data).toMatchObject({ code: "LICENSE_FILES_DISABLED", license_file: null });
    // The refused offline activation took no slot.
    expect((await machinesOf(token, key)).machines.map((m: { machine_id: string }) => m.machine_id)).toEqual([
      "thief-1",
    ]);
    const dashboard = (await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).json().data;
    expect(dashboard.licenses[0].offline_files_allowed).toBe(false);
  });

  it("the owner turns them on (audited) and off again; files already issued keep their slots", async () => {
    const { token, key } = await licensedCustomer(app, "leak-toggle");
    await validate(key, "laptop");
    await allowOfflineFiles(app, token, key, true);
    expect((await checkout(key, "laptop")).statusCode).toBe(200);
    await allowOfflineFiles(app, token, key, false);
    expect((await checkout(key, "laptop")).json().code).toBe("LICENSE_FILES_DISABLED");
    const laptop = (await machinesOf(token, key)).machines[0];
    expect(laptop.license_file_until).toEqual(expect.any(String));
    const rows = (await app.database.db.execute(sql`
      select a.type, a.after from audit_events a join licenses l on l.id = a.license_id
      where l.license_key = ${key} and a.type in ('license.offline_files_changed', 'machine.license_file_issued')
      order by a.seq`)) as unknown as { rows: { type: string; after: Record<string, unknown> }[] };
    expect(rows.rows.map((row) => row.type)).toEqual([
      "license.offline_files_changed",
      "machine.license_file_issued",
      "license.offline_files_changed",
    ]);
  });
});

describe("the leak remedy: rotate, then revoke", () => {
  it("a thief's machines holding 90-day files are revoked by the owner after rotation; the owner's own machine binds", async () => {
    const { token, key } = await licensedCustomer(app, "leak-remedy", { offlineFiles: true });
    expect((await validate(key, "owner-desk")).json().data.code).toBe("VALID");
    // The key leaks: the thief fills the free slots and takes 90-day files.
    for (const machine of ["thief-a", "thief-b"]) {
      expect((await validate(key, machine)).json().data.code).toBe("VALID");
      expect((await checkout(key, machine)).statusCode).toBe(200);
    }
    const fresh = await rotate(token, key);
    // Removal alone cannot free them (a copy of the file would run beside the next machine)…
    expect((await remove(token, fresh, "thief-a")).json().code).toBe("LICENSE_FILE_ACTIVE");
    // …revocation does, and says until when the file may still run offline.
    const revoked = await revoke(token, fresh, "thief-a");
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().message).toMatch(/may keep working offline until \d{4}-/);
    expect((await revoke(token, fresh, "thief-b")).statusCode).toBe(200);

    const list = await machinesOf(token, fresh);
    expect(list.current_count).toBe(1);
    expect(list.removed_machines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ machine_id: "thief-a", license_file_until: expect.any(String) }),
        expect.objectContaining({ machine_id: "thief-b", license_file_until: expect.any(String) }),
      ]),
    );
    // The thief's machines are barred, even with the old key in its grace; the owner's new laptop binds.
    expect((await validate(key, "thief-a")).json().data.code).toBe("MACHINE_REMOVED");
    expect((await checkout(key, "thief-b")).json().code).toBe("MACHINE_REMOVED");
    expect((await validate(fresh, "owner-laptop")).json().data.code).toBe("VALID");
  });

  it("the owner holds at most one revoked working file per device slot; an admin is not capped", async () => {
    const { token, key } = await licensedCustomer(app, "leak-cap", { offlineFiles: true });
    const slots = (await machinesOf(token, key)).max_machines as number;
    // Fill, file and revoke slot after slot: each revocation frees a slot another machine can take and file.
    await validate(key, "keeper");
    let revokedCount = 0;
    for (let round = 0; round < slots + 1; round++) {
      const machine = `cycle-${round}`;
      expect((await validate(key, machine)).json().data.code).toBe("VALID");
      expect((await checkout(key, machine)).statusCode).toBe(200);
      const answer = await revoke(token, key, machine);
      if (revokedCount < slots) {
        expect(answer.statusCode, answer.body).toBe(200);
        revokedCount += 1;
      } else {
        expect(answer.statusCode).toBe(409);
        expect(answer.json()).toMatchObject({ code: "REVOCATION_LIMIT" });
        expect(answer.json().error).toMatch(new RegExp(`${slots} revoked devices`));
      }
    }
    // Support can still revoke, with a reason, and the change is audited with it.
    const last = `cycle-${slots}`;
    const byAdmin = await post(
      `/api/admin/licenses/${key}/machines/${last}/revoke`,
      { reason: "customer reported a stolen laptop" },
      bearer(admin),
    );
    expect(byAdmin.statusCode, byAdmin.body).toBe(200);
    expect(byAdmin.json().license_file_valid_until).toEqual(expect.any(String));
    expect((await validate(key, last)).json().data.code).toBe("MACHINE_REMOVED");
    const audit = (await app.database.db.execute(sql`
      select a.actor_type, a.reason from audit_events a
      where a.type = 'machine.revoked' and a.target_id = ${last}`)) as unknown as {
      rows: { actor_type: string; reason: string }[];
    };
    expect(audit.rows).toEqual([{ actor_type: "admin", reason: "customer reported a stolen laptop" }]);
  });

  it("revocation is scoped to the owner and never takes the owner's last device", async () => {
    const { token, key } = await licensedCustomer(app, "leak-scope", { offlineFiles: true });
    const { token: stranger } = await licensedCustomer(app, "leak-stranger");
    await validate(key, "only-one");
    expect((await revoke(stranger, key, "only-one")).statusCode).toBe(404);
    expect((await revoke(token, key, "only-one")).json().code).toBe("LAST_MACHINE");
    expect((await revoke(token, key, "nobody")).statusCode).toBe(404);
  });
});

describe("an admin's device limit never leaves more slots taken than it allows", () => {
  it("lowering max_machines below the slots in use is refused; at or above it applies", async () => {
    const { key } = await licensedCustomer(app, "leak-limit");
    for (const machine of ["one", "two"]) await validate(key, machine);
    const change = (max: number) =>
      post(
        `/api/admin/licenses/${key}/actions`,
        { action: "change", max_machines: max, reason: "downgrade" },
        bearer(admin),
      );
    const below = await change(1);
    expect(below.statusCode).toBe(409);
    expect(below.json()).toMatchObject({ code: "SLOTS_IN_USE" });
    expect((await change(2)).statusCode).toBe(200);
    expect((await validate(key, "three")).json().data.code).toBe("TOO_MANY_MACHINES");
  });
});
