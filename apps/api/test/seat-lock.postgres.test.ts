/**
 * The seat lock in one round trip (issue 35, migration 0022): lockLicense holds the license row, its machine rows and
 * its open leases until its transaction ends, leaves ended leases alone, and reads the license row exactly as a select
 * does. Only a second connection can see what is locked: PostgreSQL.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { executionLeases, licenses, machines } from "../src/db/schema";
import { lockLicense } from "../src/modules/licenses/seats/seat-lock";
import { licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

const { app, close } = await createTestApp({ backgroundJobs: false });
afterAll(() => close());
const db = app.database.db;

const post = (url: string, payload: Record<string, unknown>) => app.inject({ method: "POST", url, payload });

/** Whether another connection finds the row locked (FOR NO KEY UPDATE conflicts with itself and FOR UPDATE). */
async function lockedElsewhere(table: "licenses" | "machines" | "execution_leases", id: string): Promise<boolean> {
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql`select id from ${sql.identifier(table)} where id = ${id}::uuid for no key update nowait`);
    });
    return false;
  } catch (error) {
    const code =
      (error as { code?: string; cause?: { code?: string } }).code ??
      (error as { cause?: { code?: string } }).cause?.code;
    if (code === "55P03") return true;
    throw error;
  }
}

/** Runs `inside` while another transaction holds the license's seat lock. */
async function whileLocked<T>(
  licenseId: string,
  inside: (locked: Awaited<ReturnType<typeof lockLicense>>) => Promise<T>,
) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let taken!: (locked: Awaited<ReturnType<typeof lockLicense>>) => void;
  const lockTaken = new Promise<Awaited<ReturnType<typeof lockLicense>>>((resolve) => {
    taken = resolve;
  });
  const holder = db.transaction(async (tx) => {
    taken(await lockLicense(tx, licenseId));
    await held;
  });
  try {
    return await inside(await lockTaken);
  } finally {
    release();
    await holder;
  }
}

describe("the seat lock", () => {
  it("holds the license row, its machines and its open leases, not its ended ones, until the transaction ends", async () => {
    const { key } = await licensedCustomer(app, "seat-lock");
    expect((await post("/api/license/validate", { license_key: key, machine_id: "lock-m1" })).statusCode).toBe(200);
    const first = await post("/api/license/executions", { license_key: key, machine_id: "lock-m1" });
    const endedId = first.json().data.execution.id as string;
    await post(`/api/license/executions/${endedId}/end`, { license_key: key, machine_id: "lock-m1" });
    const open = await post("/api/license/executions", { license_key: key, machine_id: "lock-m1" });
    const openId = open.json().data.execution.id as string;
    const [license] = await db.select().from(licenses).where(eq(licenses.licenseKey, key));
    const [machine] = await db.select().from(machines).where(eq(machines.licenseId, license!.id));

    await whileLocked(license!.id, async (locked) => {
      expect(locked?.license).toEqual(license);
      expect(locked?.now).toBeInstanceOf(Date);
      expect(await lockedElsewhere("licenses", license!.id)).toBe(true);
      expect(await lockedElsewhere("machines", machine!.id)).toBe(true);
      expect(await lockedElsewhere("execution_leases", openId)).toBe(true);
      expect(await lockedElsewhere("execution_leases", endedId)).toBe(false);
    });
    expect(await lockedElsewhere("licenses", license!.id)).toBe(false);
    expect(await lockedElsewhere("execution_leases", openId)).toBe(false);
    const [lease] = await db.select().from(executionLeases).where(eq(executionLeases.id, openId));
    expect(lease?.endedAt).toBeNull();
  });

  it("is null for a license that does not exist, and locks nothing", async () => {
    expect(await db.transaction((tx) => lockLicense(tx, "00000000-0000-4000-8000-000000000000"))).toBeNull();
  });
});
