// The seeded scale of issue 35 (decision 0058): a database built from the app's migrations, then filled in SQL
// (generate_series, one INSERT … SELECT per table) with what a service of that size holds. At --scale 1 ("large"):
//   1,000,000 customers and licenses, 3.2 M machines, and 61 M event rows — 20 M audit rows (six months), 8 M machine
//   events (31 days), 15 M daily validation counts (90 days), 6 M usage reports, 6 M daily usage counts, 6 M ended
//   executions — about 13 GB with indexes.
// Distributions: events go to customers by a power law (customer c's share falls as c^-2/3: customer 1 holds about
// 1 % of all events, the top thousand 10 %, the median a handful), every thousandth license is Ultra with 20 machines,
// every fifth Pro with 4, the rest Free with 3; two thirds of first machines are running (seen in the last 10 minutes),
// 1 license in 97 has a machine silent 16–35 minutes (about 20 minutes of culling backlog), the other machines are
// inactive (culled within the last 6 days). Times are relative to the seed's reference time (`bench_scale.ref`),
// which the culling measurement uses as its clock, so a seed measured a day later still has the same work due.
//
//   node bench/scale-seed.mjs --size small|large [--scale 0.02] [--force]
//
// small is --scale 0.001 (1,000 licenses) into flotilla_scale_small; large is --scale 1 (or the one given) into
// flotilla_scale_large. A database seeded at the same scale is reused unless --force (it is dropped and built again).
// SCALE_DATABASE_HOST (postgres://postgres@127.0.0.1:5432) names the server.
import { fileURLToPath } from "node:url";
import pg from "pg";

export const SERVER = process.env.SCALE_DATABASE_HOST ?? "postgres://postgres@127.0.0.1:5432";
export const SIZES = { small: 0.001, large: 1 };

export function databaseUrl(size) {
  return `${SERVER}/flotilla_scale_${size}`;
}

/** Rows per table at scale 1 (licenses and customers; the others follow from them or are counted here). */
const AT_SCALE_1 = {
  licenses: 1_000_000,
  auditEvents: 20_000_000,
  machineEvents: 8_000_000,
  usageReports: 6_000_000,
  executionLeases: 6_000_000,
};

/** The accounts the bench signs in as (their emails are the seed's: see customers below). */
export const ADMIN_CUSTOMER = 2;

function emailSql(i) {
  return `(array['ann','bob','chen','dara','eli','fatima','gus','hana','ivan','jo','kai','lena','milo','nia','omar','pia'])[1 + ${i} % 16]
    || '.' || (array['smith','garcia','kim','okafor','novak','rossi','tanaka','silva','berg','haddad'])[1 + (${i} / 16) % 10]
    || ${i} || '@' || (array['example.com','example.org','acme.test','corp.example','mail.test'])[1 + ${i} % 5]`;
}

/** The email of seeded customer `i` (the same expression as the SQL, for the bench's searches). */
export function seededEmail(i) {
  const first = ["ann", "bob", "chen", "dara", "eli", "fatima", "gus", "hana", "ivan", "jo", "kai", "lena", "milo"];
  first.push("nia", "omar", "pia");
  const last = ["smith", "garcia", "kim", "okafor", "novak", "rossi", "tanaka", "silva", "berg", "haddad"];
  const domains = ["example.com", "example.org", "acme.test", "corp.example", "mail.test"];
  return `${first[i % 16]}.${last[Math.floor(i / 16) % 10]}${i}@${domains[i % 5]}`;
}

export const licenseKeyOf = (i) => `FLOT-SCALE-${String(i).padStart(8, "0")}`;
export const machineIdOf = (i, k) => `scale-m-${i}-${k}`;

/** The statements, in order: [label, sql]. `N` licenses; `$1` is the reference time. */
function statements(scale) {
  const N = Math.max(100, Math.round(AT_SCALE_1.licenses * scale));
  const A = Math.max(1_000, Math.round(AT_SCALE_1.auditEvents * scale));
  const ME = Math.max(1_000, Math.round(AT_SCALE_1.machineEvents * scale));
  const UR = Math.max(1_000, Math.round(AT_SCALE_1.usageReports * scale));
  const EL = Math.max(1_000, Math.round(AT_SCALE_1.executionLeases * scale));
  // A customer drawn by the power law (1 … N), for the event tables.
  const skewed = `least(${N}, 1 + floor(${N} * power(random(), 3))::int)`;
  const tierOf = (i) => `(case when ${i} % 1000 = 1 then 'ultra' when ${i} % 5 = 0 then 'pro' else 'free' end)`;
  const machinesOf = (i) => `(case when ${i} % 1000 = 1 then 20 when ${i} % 5 = 0 then 4 else 3 end)`;
  return {
    N,
    list: [
      [
        "customers",
        `insert into customers (id, issuer, subject, email, name, created_at, updated_at, last_sign_in_at)
         select bench_uuid('c' || i), 'bench-scale', 'scale-' || i, ${emailSql("i")},
                initcap((array['ann','bob','chen','dara','eli','fatima','gus','hana','ivan','jo','kai','lena','milo','nia','omar','pia'])[1 + i % 16])
                  || ' ' || initcap((array['smith','garcia','kim','okafor','novak','rossi','tanaka','silva','berg','haddad'])[1 + (i / 16) % 10]),
                $1::timestamptz - ((${N} - i)::float8 / ${N}) * interval '400 days' - interval '3 days',
                $1::timestamptz, $1::timestamptz - (i % 30) * interval '1 day'
           from generate_series(1, ${N}) i`,
      ],
      [
        "licenses",
        `insert into licenses (id, customer_id, license_key, tier, status, max_machines, last_seen, created_at, updated_at)
         select bench_uuid('l' || i), bench_uuid('c' || i), 'FLOT-SCALE-' || lpad(i::text, 8, '0'), ${tierOf("i")}, 'active',
                (case when i % 1000 = 1 then 20 when i % 5 = 0 then 5 else 3 end), $1::timestamptz - (i % 600) * interval '1 second',
                $1::timestamptz - ((${N} - i)::float8 / ${N}) * interval '400 days' - interval '3 days' + interval '1 hour',
                $1::timestamptz
           from generate_series(1, ${N}) i`,
      ],
      [
        "machines",
        `insert into machines (id, license_id, machine_id, display_id, machine_name, platform, app_version, is_primary,
                               bound_at, last_seen, status, inactive_since)
         select bench_uuid('m' || i || '-' || k), bench_uuid('l' || i), 'scale-m-' || i || '-' || k, 'scale-m-' || i || '-' || k,
                'Machine ' || k, (array['macos','windows','linux'])[1 + k % 3], '1.4.2', k = 1,
                $1::timestamptz - ((${N} - i)::float8 / ${N}) * interval '400 days' - interval '3 days' + k * interval '1 hour',
                case when due then $1::timestamptz - (16 + i % 20) * interval '1 minute'
                     when running then $1::timestamptz - ((i * k) % 600) * interval '1 second'
                     else $1::timestamptz - (1 + (i + k) % 144) * interval '1 hour' end,
                case when due or running then 'active' else 'inactive' end,
                case when due or running then null
                     else $1::timestamptz - (1 + (i + k) % 144) * interval '1 hour' + interval '20 minutes' end
           from generate_series(1, ${N}) i, lateral generate_series(1, ${machinesOf("i")}) k,
                lateral (select k = 1 and i % 97 = 0 as due,
                                (k = 1 and i % 3 <> 0) or (k > 1 and (i + k) % 4 = 0) as running) s`,
      ],
      [
        "audit_events",
        `insert into audit_events (type, actor_type, actor_id, target_type, target_id, customer_id, license_id, after,
                                   address, occurred_at)
         select case when r < 0.55 then 'machine.culled' when r < 0.75 then 'machine.bound'
                     when r < 0.93 then 'machine.removed' when r < 0.99 then 'customer.sessions_revoked'
                     else 'license.updated' end,
                case when r < 0.55 then 'system' when r < 0.75 then 'service' when r < 0.99 then 'customer' else 'admin' end,
                case when r < 0.55 then 'culling' when r < 0.75 then 'license-api' when r < 0.99 then bench_uuid('c' || c)::text
                     else bench_uuid('c' || (${ADMIN_CUSTOMER} + g % 3))::text end,
                case when r < 0.93 then 'machine' when r < 0.99 then 'customer' else 'license' end,
                case when r < 0.93 then 'scale-m-' || c || '-1' when r < 0.99 then bench_uuid('c' || c)::text
                     else bench_uuid('l' || c)::text end,
                bench_uuid('c' || c),
                case when r < 0.93 or r >= 0.99 then bench_uuid('l' || c) end,
                case when r < 0.55 then '{"status":"inactive"}'::jsonb when r >= 0.99 then '{"tier":"pro"}'::jsonb end,
                case when r >= 0.75 then '203.0.113.0/24' end,
                $1::timestamptz - ((${A} - g)::float8 / ${A}) * interval '180 days'
           from (select g, ${skewed} as c, random() as r from generate_series(1, ${A}) g) s`,
      ],
      [
        "machine_events",
        `insert into machine_events (license_id, machine_id, kind, at)
         select bench_uuid('l' || c), 'scale-m-' || c || '-1',
                case when r < 0.2 then 'activated' when r < 0.7 then 'culled' when r < 0.9 then 'revived'
                     when r < 0.95 then 'deactivated' else 'forgotten' end,
                $1::timestamptz - interval '1 day' - ((${ME} - g)::float8 / ${ME}) * interval '30 days'
           from (select g, ${skewed} as c, random() as r from generate_series(1, ${ME}) g) s`,
      ],
      [
        "validation_rollups",
        `insert into validation_rollups (day, license_id, machine_id, code, attempts)
         select ($1::timestamptz)::date - d, bench_uuid('l' || i), 'scale-m-' || i || '-' || k,
                case when (i + d) % 17 = 0 then 'TOO_MANY_MACHINES' else 'VALID' end, 1 + (i + d) % 50
           from generate_series(1, ${N}) i,
                lateral generate_series(1, case when i % 1000 = 1 then 20 else 1 end) k,
                lateral generate_series(0, case when i % 1000 = 1 then 91 when i % 5 = 0 then 29 else 8 end) d`,
      ],
      [
        "usage_reports",
        `insert into usage_reports (license_id, machine_id, feature, executions, created_at)
         select bench_uuid('l' || c), 'scale-m-' || c || '-1', (array['agent-run','code-review','refactor','test-fix'])[1 + g % 4],
                1 + g % 5, $1::timestamptz - ((${UR} - g)::float8 / ${UR}) * interval '92 days'
           from (select g, ${skewed} as c from generate_series(1, ${UR}) g) s`,
      ],
      [
        "usage_rollups",
        `insert into usage_rollups (license_id, day, machine_id, feature, executions)
         select bench_uuid('l' || i), ($1::timestamptz)::date - d, 'scale-m-' || i || '-1', 'agent-run', 1 + (i + d) % 40
           from generate_series(1, ${N}) i,
                lateral generate_series(0, case when i % 1000 = 1 then 99 when i % 5 = 0 then 9 else 4 end) d`,
      ],
      [
        "execution_leases",
        `insert into execution_leases (license_id, machine_id, feature, started_at, last_heartbeat_at, expires_at, ended_at,
                                       end_reason)
         select bench_uuid('l' || c), 'scale-m-' || c || '-1', 'agent-run', at, at + interval '10 minutes',
                at + interval '15 minutes', at + interval '10 minutes', 'completed'
           from (select ${skewed} as c, $1::timestamptz - ((${EL} - g)::float8 / ${EL}) * interval '90 days'
                        - interval '1 hour' as at
                   from generate_series(1, ${EL}) g) s`,
      ],
    ],
  };
}

/** Creates (or recreates) the database and runs the app's migrations on it (the bundled harness). */
async function createDatabase(url, force, migrate) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new pg.Client({ connectionString: `${SERVER}/postgres` });
  await admin.connect();
  try {
    const exists = (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount > 0;
    if (exists && !force) return false;
    if (exists) await admin.query(`drop database "${name}" with (force)`);
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  await migrate(url);
  return true;
}

/** Seeds `size` at `scale` unless it is there already; returns what the database holds. */
export async function seed({ size, scale = SIZES[size], force = false, migrate, log = console.log }) {
  const url = databaseUrl(size);
  let created = await createDatabase(url, force, migrate);
  if (!created) {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const seeded = await db
      .query("select scale, ref, seconds from bench_scale")
      .then((result) => result.rows[0])
      .catch(() => null);
    await db.end();
    if (seeded && Number(seeded.scale) === scale) {
      log(`${size}: reusing the seed at scale ${scale} (seeded ${seeded.ref.toISOString()}, ${seeded.seconds} s)`);
      return { url, scale, ref: seeded.ref, reused: true };
    }
    created = await createDatabase(url, true, migrate);
  }
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query("set synchronous_commit = off");
    await db.query("set maintenance_work_mem = '256MB'");
    const ref = new Date();
    const { list, N } = statements(scale);
    // Ids derived from a row's number (so rows can name each other without a join), shaped as version 4 UUIDs.
    await db.query(`create function bench_uuid(t text) returns uuid language sql immutable
      as $$ select overlay(overlay(md5(t) placing '4' from 13) placing '8' from 17)::uuid $$`);
    log(`${size}: seeding at scale ${scale} (${N.toLocaleString("en-US")} licenses) into ${url}`);
    const started = performance.now();
    for (const [label, statement] of list) {
      const t = performance.now();
      const result = await db.query(statement, [ref.toISOString()]);
      log(
        `  ${label.padEnd(20)} ${result.rowCount.toLocaleString("en-US").padStart(12)} rows ${((performance.now() - t) / 1000).toFixed(1).padStart(7)} s`,
      );
    }
    const t = performance.now();
    await db.query("vacuum (analyze)");
    log(
      `  ${"vacuum, analyze".padEnd(20)} ${"".padStart(12)}      ${((performance.now() - t) / 1000).toFixed(1).padStart(7)} s`,
    );
    const seconds = Math.round((performance.now() - started) / 1000);
    await db.query("create table bench_scale (scale numeric not null, ref timestamptz not null, seconds int not null)");
    await db.query("insert into bench_scale values ($1, $2, $3)", [scale, ref.toISOString(), seconds]);
    const { rows } = await db.query("select pg_size_pretty(pg_database_size(current_database())) as size");
    log(`${size}: seeded in ${seconds} s, ${rows[0].size}`);
    return { url, scale, ref, reused: false };
  } finally {
    await db.end();
  }
}

/** The seed's figures: licenses (N) and the seeded customers the bench uses. */
export function seededCounts(scale) {
  return { licenses: statements(scale).N };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (flag) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const size = value("--size") ?? "small";
  if (!(size in SIZES)) throw new Error("--size is small or large");
  const scale = Number(value("--scale") ?? SIZES[size]);
  if (!(scale > 0 && scale <= 1)) throw new Error("--scale is a number in (0, 1]");
  const { importHarness } = await import("./lib/build-harness.mjs");
  const harness = await importHarness("scale");
  await seed({ size, scale, force: args.includes("--force"), migrate: harness.migrate });
  process.exit(0);
}
