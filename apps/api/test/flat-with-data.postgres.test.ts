/**
 * The plans of the reads that grew with the data (issue 35, decision 0058), on PostgreSQL with enough rows that the
 * planner has a choice: each reads a bounded number of rows from an index, never the table. The OR the activity
 * replaced is explained beside it, to show what the guard catches (it reads every row of a heavy customer).
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../src/db/schema";
import { newestAuditQuery } from "../src/modules/admin/newest-first";
import { activityBranches, customerListQuery } from "../src/modules/admin/service";
import { cullingCandidates } from "../src/modules/licenses/seats/machine-slots";
import { createTestApp, onPostgres } from "./helpers/test-app";

const { app, close } = await createTestApp({ backgroundJobs: false });
afterAll(() => close());
const db = app.database.db;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** What a plan read from `table`: its scans, and the rows they looked at in all (returned or filtered out). */
function reads(plan: PlanNode, table: string) {
  const scans = nodes(plan).filter((node) => node["Relation Name"] === table);
  return {
    seqScans: scans.filter((node) => node["Node Type"] === "Seq Scan").length,
    rows: scans.reduce(
      (sum, node) =>
        sum +
        (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) *
          node["Actual Loops"],
      0,
    ),
    scans: scans.map((node) => `${node["Node Type"]} ${node["Index Name"] ?? ""}`.trim()),
  };
}

async function explain(query: ReturnType<typeof sql>): Promise<PlanNode> {
  const result = (await db.execute(sql`explain (analyze, format json) ${query}`)) as unknown as {
    rows: { "QUERY PLAN": { Plan: PlanNode }[] }[];
  };
  return result.rows[0]!["QUERY PLAN"][0]!.Plan;
}

async function explainText(text: string, params: unknown[]): Promise<PlanNode> {
  const pool = (db as unknown as { $client: { query(text: string, params: unknown[]): Promise<{ rows: never[] }> } })
    .$client;
  const result = await pool.query(`explain (analyze, format json) ${text}`, params);
  return (result.rows[0] as unknown as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]!.Plan;
}

const CUSTOMERS = 100_000;
const LICENSES = 20_000;
const HEAVY = "00000000-0000-4000-8000-000000000001";

describe.runIf(onPostgres)("plans that stay flat (PostgreSQL)", () => {
  beforeAll(async () => {
    // 100,000 customers, 20,000 with a license and three machines each (running, or inactive since yesterday: nothing
    // due); 60,000 audit rows, a third of them the first customer's, two or three each for the other licensed ones.
    await db.execute(sql`
      insert into customers (id, issuer, subject, email, name, created_at)
      select case when i = 1 then ${HEAVY}::uuid else md5('c' || i)::uuid end, 'plan', 'plan-' || i,
             'person-' || i || '@example.com', 'Person ' || i, now() - i * interval '1 minute'
      from generate_series(1, ${CUSTOMERS}) i`);
    await db.execute(sql`
      insert into licenses (id, customer_id, license_key, tier, max_machines)
      select md5('l' || i)::uuid, case when i = 1 then ${HEAVY}::uuid else md5('c' || i)::uuid end,
             'PLAN-' || i, 'free', 3
      from generate_series(1, ${LICENSES}) i`);
    await db.execute(sql`
      insert into machines (license_id, machine_id, display_id, last_seen, status, inactive_since)
      select md5('l' || i)::uuid, 'm-' || k, 'm-' || k, now(),
             case when k = 1 then 'active' else 'inactive' end, case when k = 1 then null else now() - interval '1 day' end
      from generate_series(1, ${LICENSES}) i, generate_series(1, 3) k`);
    await db.execute(sql`
      insert into audit_events (type, actor_type, actor_id, target_type, target_id, customer_id, license_id)
      select 'machine.bound', case when g % 100 = 0 then 'admin' else 'service' end,
             case when g % 100 = 0 then md5('c2') else 'license-api' end, 'machine', 'm-1',
             case when g % 3 = 0 then ${HEAVY}::uuid else md5('c' || (2 + g % ${LICENSES - 1}))::uuid end,
             case when g % 3 = 0 then md5('l1')::uuid else md5('l' || (2 + g % ${LICENSES - 1}))::uuid end
      from generate_series(1, 60000) g`);
    await db.execute(sql`analyze`);
  });

  it("a customer's activity reads at most a page from each index, heavy or light, where the OR read the log", async () => {
    const light = (
      (await db.execute(sql`select md5('c500')::uuid::text as id`)) as unknown as { rows: { id: string }[] }
    ).rows[0]!.id;
    for (const customer of [HEAVY, light]) {
      const branches = await activityBranches(db, customer);
      expect(branches).toHaveLength(2);
      const plan = reads(await explain(newestAuditQuery(branches, undefined, 21)), "audit_events");
      expect(plan.seqScans, plan.scans.join(", ")).toBe(0);
      // A page from each branch's index; for the heavy customer PostgreSQL may rather walk the log's newest rows, a third
      // of which are theirs: a few pages either way, never the log.
      expect(plan.rows, plan.scans.join(", ")).toBeLessThanOrEqual(branches.length * 21 * 10);
    }
    // What it replaced: for a light customer, the OR walked the log (its license's half is a subquery no index serves).
    const before = reads(
      await explain(sql`select * from audit_events where customer_id = ${light}
        or license_id in (select id from licenses where customer_id = ${light}) order by seq desc limit 21`),
      "audit_events",
    );
    expect(before.rows, before.scans.join(", ")).toBeGreaterThanOrEqual(30_000);
  });

  it("the audit search by actor reads at most a page from each index", async () => {
    const t = auditEvents;
    const adminId = ((await db.execute(sql`select md5('c2') as id`)) as unknown as { rows: { id: string }[] }).rows[0]!
      .id;
    const branches = [
      eq(t.actorType, "someone@example.com"),
      eq(t.actorId, "someone@example.com"),
      eq(t.actorId, adminId),
    ];
    const plan = reads(await explain(newestAuditQuery(branches, undefined, 51)), "audit_events");
    expect(plan.seqScans, plan.scans.join(", ")).toBe(0);
    expect(plan.rows).toBeLessThanOrEqual(3 * 51);
    const byType = reads(await explain(newestAuditQuery([eq(t.actorType, "admin")], undefined, 51)), "audit_events");
    expect(byType.seqScans, byType.scans.join(", ")).toBe(0);
    expect(byType.rows).toBeLessThanOrEqual(51);
  });

  it("the console's customer list: the first page from (created_at, id), a rare match from the trigram indexes", async () => {
    const first = customerListQuery(db, { limit: 50 }).toSQL();
    const page = reads(await explainText(first.sql, first.params), "customers");
    expect(page.seqScans, page.scans.join(", ")).toBe(0);
    expect(page.rows).toBeLessThanOrEqual(51);
    const search = customerListQuery(db, { limit: 50, q: "person-12345@" }).toSQL();
    const found = reads(await explainText(search.sql, search.params), "customers");
    expect(found.seqScans, found.scans.join(", ")).toBe(0);
  });

  it("the culling job with nothing due reads no license", async () => {
    const { licenseWhere, machineWhere } = cullingCandidates(new Date());
    const plan = await explain(sql`select l.id from licenses l where ${licenseWhere}
      and exists (select 1 from machines m where m.license_id = l.id and ${machineWhere}) order by l.id limit 500`);
    const licenses = reads(plan, "licenses");
    const machines = reads(plan, "machines");
    expect(licenses.seqScans + machines.seqScans, [...licenses.scans, ...machines.scans].join(", ")).toBe(0);
    expect(licenses.rows).toBe(0);
  });
});
