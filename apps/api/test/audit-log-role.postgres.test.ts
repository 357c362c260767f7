/**
 * Issue 22 (launch review 2), decision 0039: the service can run as a role that may only INSERT and SELECT on the
 * audit log. A scratch database gets its two roles from deploy/postgres-init.sql (through psql, as the PostgreSQL
 * image runs it); the service starts with DATABASE_URL = the service role and DATABASE_MIGRATION_URL = the owner,
 * works (a signup, a sign-in, a license and its changes, the outbox, retention), and that role then cannot rewrite
 * the log: no UPDATE, DELETE or TRUNCATE, no dropping or disabling the trigger, no replacing its function, no
 * replica mode. Nor can the owner delete through the old escape hatch. A service role that owns the table is refused.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { retentionJob } from "../src/jobs/retention";
import { validSignup } from "./fixtures";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { migrationsBefore } from "./helpers/migrations";
import { plantedSession } from "./helpers/planted-session";
import { testConfig } from "./helpers/test-app";

const INIT_SQL = fileURLToPath(new URL("../../../deploy/postgres-init.sql", import.meta.url));
const ADMIN = "role.admin@example.com";
const suffix = randomBytes(5).toString("hex");
const database = `flotilla_roles_${suffix}`;
const roles = { owner: `flotilla_owner_${suffix}`, service: `flotilla_service_${suffix}` };
const passwords = { owner: randomBytes(12).toString("hex"), service: randomBytes(12).toString("hex") };
const adminUrl = new URL(process.env.TEST_DATABASE_URL!);

function urlAs(role: keyof typeof roles, name = database): string {
  const url = new URL(adminUrl);
  url.username = roles[role];
  url.password = passwords[role];
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs deploy/postgres-init.sql in database `name` as the test's superuser, the way the PostgreSQL image does. */
function runInitSql(name: string) {
  const target = new URL(adminUrl);
  target.pathname = `/${name}`;
  const psql = spawnSync("psql", ["-X", "-q", "-d", target.toString(), "-f", INIT_SQL], {
    encoding: "utf8",
    env: {
      ...process.env,
      FLOTILLA_OWNER_ROLE: roles.owner,
      FLOTILLA_SERVICE_ROLE: roles.service,
      FLOTILLA_OWNER_PASSWORD: passwords.owner,
      FLOTILLA_SERVICE_PASSWORD: passwords.service,
    },
  });
  if (psql.error || psql.status !== 0) {
    throw new Error(`deploy/postgres-init.sql failed (psql 15+ is needed): ${psql.error ?? psql.stderr}`);
  }
}

async function asAdminDb<T>(query: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminUrl.toString() });
  await client.connect();
  try {
    return (await client.query(query)).rows as T[];
  } finally {
    await client.end();
  }
}

let app: FastifyInstance;
let service: pg.Client;

beforeAll(async () => {
  await asAdminDb(`CREATE DATABASE ${database}`);
  runInitSql(database);
  const { database: options } = loadConfig({ DATABASE_URL: urlAs("service"), DATABASE_MIGRATION_URL: urlAs("owner") });
  app = await buildApp(testConfig({ database: options, adminEmails: [ADMIN], backgroundJobs: false }));
  service = new pg.Client({ connectionString: urlAs("service") });
  await service.connect();
}, 60_000);

afterAll(async () => {
  await service?.end().catch(() => undefined);
  await app?.close();
  await asAdminDb(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await asAdminDb(`DROP DATABASE IF EXISTS ${database}_earlier WITH (FORCE)`);
  await asAdminDb(`DROP ROLE IF EXISTS ${roles.service}`);
  await asAdminDb(`DROP ROLE IF EXISTS ${roles.owner}`);
});

const auditCount = async () =>
  Number((await service.query("SELECT count(*) AS n FROM audit_events")).rows[0].n as string);

describe("the service as a role that may only INSERT and SELECT on the audit log", () => {
  it("works: the pool logs in as the service role, which owns nothing", async () => {
    const [who] = (
      (await app.database.db.execute("SELECT current_user AS role")) as unknown as { rows: { role: string }[] }
    ).rows;
    expect(who!.role).toBe(roles.service);
    const owned = await service.query(
      "SELECT count(*)::int AS n FROM pg_class WHERE relowner = to_regrole(current_user) AND relnamespace = 'public'::regnamespace",
    );
    expect(owned.rows[0].n).toBe(0);
  });

  it("serves a signup, a sign-in, a license and its changes, the outbox and retention", async () => {
    const before = await auditCount();
    expect(
      (
        await app.inject({
          method: "POST",
          url: "/api/signup",
          payload: validSignup({ email: "role.one@example.com" }),
        })
      ).statusCode,
    ).toBe(200);
    const { token, key } = await licensedCustomer(app, "role.customer.");
    const validated = await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: key, machine_id: "role-machine-1" },
    });
    expect(validated.json().data.code).toBe("VALID");
    const rotated = await app.inject({
      method: "POST",
      url: `/api/customer/licenses/${key}/rotate`,
      headers: bearer(token),
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const newKey = rotated.json().data.license.license_key as string;
    const suspended = await app.inject({
      method: "POST",
      url: `/api/admin/licenses/${newKey}/actions`,
      headers: bearer(await plantedSession(app, ADMIN)),
      payload: { action: "suspend", reason: "role test" },
    });
    expect(suspended.statusCode, suspended.body).toBe(200);
    expect((await app.outbox.runOnce()).delivered).toBeGreaterThan(0);
    expect((await app.jobs.runNow(retentionJob))?.ran).toBe(true);
    // signup, customer, license created, machine bound, key rotated, status changed (at least).
    expect((await auditCount()) - before).toBeGreaterThanOrEqual(6);
  });

  it("cannot change the log, drop or disable its trigger, replace its function, or switch triggers off", async () => {
    const before = await auditCount();
    expect(before).toBeGreaterThan(0);
    for (const [statement, refusal] of [
      ["UPDATE audit_events SET reason = 'rewritten'", /permission denied for table audit_events/],
      ["DELETE FROM audit_events", /permission denied for table audit_events/],
      ["TRUNCATE audit_events", /permission denied for table audit_events/],
      ["DROP TRIGGER audit_events_no_change ON audit_events", /must be owner of (table|relation) audit_events/],
      ["ALTER TABLE audit_events DISABLE TRIGGER ALL", /must be owner of (table|relation) audit_events/],
      [
        "ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_change",
        /must be owner of (table|relation) audit_events/,
      ],
      ["DROP TABLE audit_events", /must be owner of (table|relation) audit_events/],
      ["ALTER TABLE audit_events RENAME TO audit_events_old", /must be owner of (table|relation) audit_events/],
      ["DROP FUNCTION audit_events_append_only() CASCADE", /must be owner of function audit_events_append_only/],
      [
        "CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$",
        /must be owner of function|permission denied for schema public/,
      ],
      ["SET session_replication_role = replica", /permission denied to set parameter/],
      ["CREATE TABLE audit_shadow (id int)", /permission denied for schema public/],
    ] as const) {
      await expect(service.query(statement), statement).rejects.toThrow(refusal);
    }
    // Granting itself more is accepted with a warning ("no privileges were granted") and changes nothing.
    await service.query("GRANT UPDATE, DELETE, TRUNCATE ON audit_events TO PUBLIC");
    const granted = await service.query(
      "SELECT has_table_privilege(current_user, 'audit_events', 'UPDATE') OR has_table_privilege(current_user, 'audit_events', 'DELETE') AS any",
    );
    expect(granted.rows[0].any).toBe(false);
    expect(await auditCount()).toBe(before);
    const [row] = (await service.query("SELECT reason FROM audit_events WHERE reason = 'rewritten'")).rows;
    expect(row).toBeUndefined();
  });

  it("the owner finds no escape hatch either: SET LOCAL flotilla.audit_retention = 'on' deletes nothing", async () => {
    const owner = new pg.Client({ connectionString: urlAs("owner") });
    await owner.connect();
    try {
      const before = await auditCount();
      await owner.query("BEGIN");
      await owner.query("SET LOCAL flotilla.audit_retention = 'on'");
      await expect(owner.query("DELETE FROM audit_events")).rejects.toThrow(/audit_events is append-only/);
      await owner.query("ROLLBACK");
      expect(await auditCount()).toBe(before);
    } finally {
      await owner.end();
    }
  });

  it("a DATABASE_URL that could change the log (here: the owner itself) stops the start, naming the role", async () => {
    const { database: options } = loadConfig({ DATABASE_URL: urlAs("owner"), DATABASE_MIGRATION_URL: urlAs("owner") });
    await expect(buildApp(testConfig({ database: options, backgroundJobs: false }))).rejects.toThrow(
      new RegExp(`DATABASE_URL logs in as "${roles.owner}", which may change or drop the audit log`),
    );
  });
});

describe("migration 0012 on a deployed database: the owner (no superuser) rewrites the log once", () => {
  it("rewrites rows written before, turns the trigger back on, and the service role still cannot change the log", async () => {
    const deployed = `${database}_0012`;
    await asAdminDb(`CREATE DATABASE ${deployed}`);
    runInitSql(deployed);
    const owner = new pg.Client({ connectionString: urlAs("owner", deployed) });
    await owner.connect();
    const before = migrationsBefore(12);
    try {
      await migrateNodePg(drizzle(owner), { migrationsFolder: before });
      await owner.query(`INSERT INTO audit_events (type, actor_type, actor_id, actor_email, target_type, target_id, after,
        address) VALUES ('admin.granted', 'admin', 'admin-cli', 'boss@example.com', 'admin', 'pat@example.com',
        '{"email":"pat@example.com"}', '203.0.113.9')`);
      const { database: options } = loadConfig({
        DATABASE_URL: urlAs("service", deployed),
        DATABASE_MIGRATION_URL: urlAs("owner", deployed),
      });
      const started = await buildApp(testConfig({ database: options, backgroundJobs: false }));
      await started.close();
      const [row] = (await owner.query("SELECT * FROM audit_events")).rows;
      expect(row).toMatchObject({ target_type: "admin", after: {}, address: "203.0.113.0/24" });
      expect(JSON.stringify(row)).not.toContain("@example.com");
      const trigger = await owner.query("SELECT tgenabled FROM pg_trigger WHERE tgname = 'audit_events_no_change'");
      expect(trigger.rows).toEqual([{ tgenabled: "O" }]);
      await expect(owner.query("UPDATE audit_events SET reason = 'x'")).rejects.toThrow(/append-only/);
      const client = new pg.Client({ connectionString: urlAs("service", deployed) });
      await client.connect();
      try {
        await expect(client.query("UPDATE audit_events SET reason = 'x'")).rejects.toThrow(/permission denied/);
        await expect(client.query("ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_change")).rejects.toThrow(
          /must be owner/,
        );
      } finally {
        await client.end();
      }
    } finally {
      await owner.end();
      rmSync(before, { recursive: true, force: true });
      await asAdminDb(`DROP DATABASE IF EXISTS ${deployed} WITH (FORCE)`);
    }
  }, 60_000);
});

describe("a database made by an earlier deploy/ (everything owned by the superuser)", () => {
  it("is handed to the owner by postgres-init.sql run by hand; the service then runs restricted", async () => {
    const earlier = `${database}_earlier`;
    await asAdminDb(`CREATE DATABASE ${earlier}`);
    const superuser = new URL(adminUrl);
    superuser.pathname = `/${earlier}`;
    const before = await buildApp(testConfig({ database: { kind: "postgres", url: superuser.toString() } }));
    await before.inject({ method: "POST", url: "/api/signup", payload: validSignup({ email: "earlier@example.com" }) });
    await before.close();

    runInitSql(earlier);
    const { database: options } = loadConfig({
      DATABASE_URL: urlAs("service", earlier),
      DATABASE_MIGRATION_URL: urlAs("owner", earlier),
    });
    const after = await buildApp(testConfig({ database: options, backgroundJobs: false }));
    const client = new pg.Client({ connectionString: urlAs("service", earlier) });
    await client.connect();
    try {
      const owners = await client.query(
        "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname IN ('public', 'drizzle')",
      );
      expect(owners.rows).toEqual([{ tableowner: roles.owner }]);
      const signup = validSignup({ email: "later@example.com" });
      expect((await after.inject({ method: "POST", url: "/api/signup", payload: signup })).statusCode).toBe(200);
      await expect(client.query("DELETE FROM audit_events")).rejects.toThrow(/permission denied/);
      await expect(client.query("ALTER TABLE audit_events DISABLE TRIGGER ALL")).rejects.toThrow(/must be owner/);
      expect(Number((await client.query("SELECT count(*) AS n FROM audit_events")).rows[0].n)).toBeGreaterThanOrEqual(
        2,
      );
    } finally {
      await client.end();
      await after.close();
    }
  });
});
