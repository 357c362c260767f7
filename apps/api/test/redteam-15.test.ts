/**
 * Red team, issue 15 (seats, key rotation, license files, signed answers): each test is an attack that worked at
 * dacdd59, kept as a regression test once fixed.
 */

import { createDecipheriv } from "node:crypto";
import { LICENSE_FILE_AAD, licenseFileKey } from "@flotilla/contracts/license-file";
import { SEAT_RULES } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setStatus } from "./helpers/license-status";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const licensed = () => licensedCustomer(app, "redteam15-", { offlineFiles: true });
const post = (url: string, payload: unknown) =>
  app.inject({ method: "POST", url, payload: payload as Record<string, unknown> });
const validate = (key: string, machine: string) =>
  post("/api/license/validate", { license_key: key, machine_id: machine });
const checkout = (key: string, machine: string, ttl = SEAT_RULES.licenseFileMaxTtlSeconds) =>
  post("/api/license/checkout", { license_key: key, machine_id: machine, ttl_seconds: ttl });
const remove = (token: string, key: string, machine: string) =>
  app.inject({ method: "DELETE", url: `/api/license/machines/${key}/${machine}`, headers: bearer(token) });
const rotate = async (token: string, key: string) => {
  const answer = await app.inject({
    method: "POST",
    url: `/api/customer/licenses/${key}/rotate`,
    headers: bearer(token),
  });
  return answer.json().data as { license: { license_key: string }; previous_key_valid_until: string };
};

function openFile(file: { iv: string; ciphertext: string; tag: string }, key: string, machine: string) {
  const decipher = createDecipheriv("aes-256-gcm", licenseFileKey(key, machine), Buffer.from(file.iv, "base64url"));
  decipher.setAAD(LICENSE_FILE_AAD);
  decipher.setAuthTag(Buffer.from(file.tag, "base64url"));
  return decodeJwt(
    Buffer.concat([decipher.update(Buffer.from(file.ciphertext, "base64url")), decipher.final()]).toString("utf8"),
  );
}

describe("license files cannot multiply seats through the dashboard", () => {
  it("the owner cannot remove a machine whose license file still works, so no new machine takes its slot", async () => {
    const { token, key } = await licensed();
    const max = TIERS.free.maxMachines;
    // Fill the license; the first machine takes a 90-day license file and goes offline with it.
    for (let i = 1; i <= max; i++) expect((await validate(key, `seat-${i}`)).json().data.code).toBe("VALID");
    expect((await checkout(key, "seat-1")).statusCode).toBe(200);
    // Attack: "remove" it in the dashboard (its file keeps working offline for 90 days), then bind another machine.
    const removed = await remove(token, key, "seat-1");
    expect(removed.statusCode).toBe(409);
    expect(removed.json()).toMatchObject({ success: false, code: "LICENSE_FILE_ACTIVE" });
    expect((await validate(key, "seat-extra")).json().data.code).toBe("TOO_MANY_MACHINES");
  });
});

describe("a rotated key during its grace", () => {
  it("is not answered from a cache that the license's changes no longer invalidate (removal, suspension)", async () => {
    const { token, key: oldKey } = await licensed();
    await validate(oldKey, "grace-a");
    await validate(oldKey, "grace-b");
    const { license } = await rotate(token, oldKey);
    const newKey = license.license_key;
    // A machine still on the old key fills the cache for that key…
    expect((await validate(oldKey, "grace-a")).json().data.code).toBe("VALID");
    // …the owner removes it (the change names the license's current key).
    expect((await remove(token, newKey, "grace-a")).statusCode).toBe(200);
    expect((await validate(oldKey, "grace-a")).json().data.code).toBe("MACHINE_REMOVED");
    const file = await checkout(oldKey, "grace-a");
    expect(file.statusCode).toBe(403);

    // The license is suspended: the old key must not keep minting tokens from a cached "active".
    expect((await validate(oldKey, "grace-b")).json().data.code).toBe("VALID");
    await setStatus(app, newKey, "suspended");
    await app.licensing.changed(newKey);
    expect((await validate(oldKey, "grace-b")).json().data).toMatchObject({ valid: false, code: "SUSPENDED" });
  });

  it("cannot mint a license file that outlives the key: a leaked key is not worth 90 days offline", async () => {
    const { token, key: leaked } = await licensed();
    await validate(leaked, "owner-box");
    // The owner rotates because the key leaked; the holder of the leaked key activates and checks out within the hour.
    await validate(leaked, "thief-box");
    const { previous_key_valid_until } = await rotate(token, leaked);
    // The old key activates nothing new during its grace…
    expect((await validate(leaked, "thief-late")).json().data.code).toBe("NOT_FOUND");
    // …and a machine it already served gets no file that outlives it.
    const answer = await checkout(leaked, "thief-box");
    if (answer.statusCode === 200) {
      const claims = openFile(answer.json().data.license_file, leaked, "thief-box");
      expect((claims.exp as number) * 1000).toBeLessThanOrEqual(new Date(previous_key_valid_until).getTime());
    } else {
      expect(answer.statusCode).toBe(403);
    }
    const exchanged = await post("/api/license/offline-activations", {
      request: {
        format: "flotilla-activation-request/1",
        license_key: leaked,
        machine_id: "thief-airgap",
        created_at: new Date().toISOString(),
      },
      ttl_seconds: SEAT_RULES.licenseFileMaxTtlSeconds,
    });
    const exchangedFile = exchanged.json().data.license_file;
    if (exchangedFile) {
      const claims = openFile(exchangedFile, leaked, "thief-airgap");
      expect((claims.exp as number) * 1000).toBeLessThanOrEqual(new Date(previous_key_valid_until).getTime());
    }
  });
});

describe("a license file is decided by the database, not a cache", () => {
  it("a machine culled by another instance (its message not arrived yet) gets no file from a stale cache", async () => {
    const { key } = await licensed();
    await validate(key, "stale-a");
    expect((await validate(key, "stale-a")).json().data.code).toBe("VALID");
    // Another instance culls it; this instance's cache has not heard yet.
    await app.database.db.execute(
      sql`update machines set status = 'inactive', inactive_since = now() where machine_id = 'stale-a'`,
    );
    await app.database.db.execute(
      sql`insert into machine_events (license_id, machine_id, kind, at)
          select license_id, machine_id, 'culled', now() from machines where machine_id = 'stale-a'`,
    );
    const answer = await checkout(key, "stale-a");
    expect(answer.statusCode).toBe(403);
    expect(answer.json().code).toBe("NOT_ACTIVATED");
    // Once the cache is current, the machine wins its slot back as usual and may check out.
    expect((await validate(key, "stale-a")).json().data.code).toBe("VALID");
    expect((await checkout(key, "stale-a")).statusCode).toBe(200);
  });
});

describe("secrets stay out of the audit log and webhooks", () => {
  it("license.created names the key by its last characters only", async () => {
    const { key } = await licensed();
    const rows = (await app.database.db.execute(sql`
      select a.after::text as after, (select string_agg(o.payload::text, ' ') from outbox o where o.event_id = a.id) as outbox
      from audit_events a join licenses l on l.id = a.license_id
      where a.type = 'license.created' and l.license_key = ${key}`)) as unknown as {
      rows: { after: string; outbox: string | null }[];
    };
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]!.after).not.toContain(key);
    expect(rows.rows[0]!.after).toContain(key.slice(-5));
    expect(rows.rows[0]!.outbox ?? "").not.toContain(key);
  });
});
