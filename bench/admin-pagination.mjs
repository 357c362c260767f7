// `npm run bench:admin`: the admin API's keyset pagination over 1,000,000 early-access signups on PostgreSQL.
//   1. seeds the signups in SQL (generate_series, one statement) into DATABASE_URL, or
//      postgres://postgres@127.0.0.1:5432/flotilla_bench (created when missing); re-runs reuse the rows;
//   2. starts the built server against it, with an admin session written straight into the database;
//   3. times, over loopback, sequential GETs of: the first page, a page ~50 pages in (reached by following the
//      cursors), a page near the end (a cursor for the row 999,900 rows in), and filtered searches; prints p50/p95.
// BENCH_ROWS (default 1000000) and BENCH_SAMPLES (default 40) change the size and the number of timed requests.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { checkNode, ensureBuild, ensureDependencies, ROOT } from "../scripts/lib/bootstrap.mjs";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const PORT = Number(process.env.BENCH_PORT ?? 3950);
const BASE = `http://127.0.0.1:${PORT}`;
const DATABASE_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/flotilla_bench";
const ADMIN_EMAIL = "bench-admin@example.com";
const PAGE = 50;

checkNode();
ensureDependencies();
ensureBuild();

/** Creates the database when it does not exist (connecting to the server's `postgres` database). */
async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = "/postgres";
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  const exists = await client.query("select 1 from pg_database where datname = $1", [name]);
  if (exists.rowCount === 0) {
    await client.query(`create database "${name.replace(/"/g, '""')}"`);
    console.log(`created database ${name}`);
  }
  await client.end();
}

await ensureDatabase(DATABASE_URL);

const dataDir = mkdtempSync(join(tmpdir(), "flotilla-bench-admin-"));
const server = spawn(process.execPath, [join(ROOT, "apps/api/dist/server.js")], {
  env: {
    ...process.env,
    PORT: String(PORT),
    HOST: "127.0.0.1",
    PUBLIC_ORIGIN: BASE,
    LOG_LEVEL: "warn",
    DATA_DIR: dataDir,
    DATABASE_URL,
    REDIS_URL: "",
    ADMIN_EMAILS: ADMIN_EMAIL,
    BACKGROUND_JOBS: "false",
    SERVE_SITE: "false",
    RATE_LIMIT_PER_MINUTE: "100000000",
  },
  stdio: "inherit",
});
const stop = () => {
  server.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
};
process.on("exit", stop);
process.on("SIGINT", () => process.exit(130));

let ready = false;
for (let i = 0; i < 600 && !ready; i++) {
  try {
    ready = (await fetch(`${BASE}/api/ready`)).ok;
  } catch {}
  if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
}
if (!ready) throw new Error("the server did not become ready (migrations run on start)");

const db = new pg.Client({ connectionString: DATABASE_URL });
await db.connect();

// 1. The rows: one INSERT … SELECT over generate_series. Times spread over two years, newest now; answers cycle
//    through the form's options; ids random (as in production), so (created_at, id) is the only order there is.
const { rows: countRows } = await db.query("select count(*)::int as n from signups where email like 'bench-%'");
if (countRows[0].n < ROWS) {
  const started = performance.now();
  await db.query("delete from signups where email like 'bench-%'");
  await db.query(
    `insert into signups (email, email_normalized, name, company, role, ai_experience, platform, interests, newsletter, created_at, updated_at)
     select 'bench-' || i || '@example.com', 'bench-' || i || '@example.com',
            'Bench Person ' || i, 'Company ' || (i % 5000),
            (array['Software Developer','Product Manager','Tech Lead','Software Architect','DevOps Engineer','UX/UI Designer','Founder/CEO','Other'])[1 + i % 8],
            (array['Beginner - Just getting started with AI tools','Intermediate - Some experience with AI in development','Advanced - Regularly use AI for complex tasks','Expert - Building AI-powered applications'])[1 + (i / 8) % 4],
            (array['Web Application - Use it from any browser','Windows Desktop - Native app for Windows','macOS Desktop - Native app for macOS (beta now)','All Platforms - I want it everywhere I work'])[1 + (i / 32) % 4],
            (array['AI Agent Coordination','Task Automation','Unified Memory, Git Integration','Enterprise Features'])[1 + (i / 7) % 4],
            i % 3 = 0,
            now() - (i * interval '63 seconds') + (random() * interval '1 second'),
            now()
       from generate_series(1, $1::int) as i`,
    [ROWS],
  );
  await db.query("analyze signups");
  console.log(
    `seeded ${ROWS.toLocaleString("en-US")} signups in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
} else {
  console.log(`reusing ${countRows[0].n.toLocaleString("en-US")} seeded signups`);
}

// 2. An admin session, written the way sign-in writes one (only the token's SHA-256 is stored).
const token = randomBytes(32).toString("base64url");
const { rows: adminRows } = await db.query(
  `insert into customers (issuer, subject, email, name) values ('bench', 'bench-admin', $1, 'Bench Admin')
   on conflict (issuer, subject) do update set email = excluded.email returning id`,
  [ADMIN_EMAIL],
);
await db.query(
  `insert into sessions (token_hash, customer_id, expires_at, absolute_expires_at)
   values ($1, $2, now() + interval '1 day', now() + interval '1 day')`,
  [createHash("sha256").update(token).digest("hex"), adminRows[0].id],
);
const headers = { authorization: `Bearer ${token}` };

async function get(path) {
  const started = performance.now();
  const response = await fetch(`${BASE}${path}`, { headers });
  const body = await response.json();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return { body, ms };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const results = [];
async function measure(label, path, check = () => {}) {
  await get(path); // warm: plan cache, connection pool
  const times = [];
  let last;
  for (let i = 0; i < SAMPLES; i++) {
    last = await get(path);
    times.push(last.ms);
  }
  check(last.body);
  results.push({ label, rows: last.body.data?.length ?? 0, p50: percentile(times, 50), p95: percentile(times, 95) });
}

const encodeCursor = (parts) => Buffer.from(JSON.stringify(parts)).toString("base64url");

// 3a. The first page.
await measure("first page (newest 50)", `/api/admin/signups?limit=${PAGE}`, (body) => {
  if (body.data.length !== PAGE || !body.next_cursor) throw new Error("first page is not full");
});

// 3b. ~50 pages in, reached as the console does: following next_cursor page after page.
let cursor;
const walk = [];
const seen = new Set();
for (let page = 1; page <= 50; page++) {
  const { body, ms } = await get(`/api/admin/signups?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ""}`);
  walk.push(ms);
  for (const row of body.data) {
    if (seen.has(row.id)) throw new Error(`row ${row.id} repeated across pages`);
    seen.add(row.id);
  }
  cursor = body.next_cursor;
}
results.push({
  label: "following cursors, pages 1–50 (each)",
  rows: PAGE,
  p50: percentile(walk, 50),
  p95: percentile(walk, 95),
});
await measure("page 51 (cursor after 2,500 rows)", `/api/admin/signups?limit=${PAGE}&cursor=${cursor}`, (body) => {
  if (body.data.length !== PAGE) throw new Error("page 51 is not full");
});

// 3c. Near the end: a cursor naming the row ROWS − 100 rows in (as if someone had paged all the way there).
const { rows: deep } = await db.query(
  "select created_at::text as at, id from signups order by created_at desc, id desc offset $1 limit 1",
  [Math.max(0, ROWS - 100)],
);
await measure(
  `near the end (cursor ${(ROWS - 100).toLocaleString("en-US")} rows in)`,
  `/api/admin/signups?limit=${PAGE}&cursor=${encodeCursor([deep[0].at, deep[0].id])}`,
  (body) => {
    if (body.data.length === 0) throw new Error("no rows near the end");
  },
);

// 3d. Filtered searches: equality filters (common values), a date range, and text search (common and rare).
await measure(
  "filter role + platform",
  `/api/admin/signups?limit=${PAGE}&role=${encodeURIComponent("Tech Lead")}&platform=${encodeURIComponent("Windows Desktop - Native app for Windows")}`,
);
await measure(
  "filter date range (one month, a year ago)",
  `/api/admin/signups?limit=${PAGE}&from=${isoDaysAgo(395)}&to=${isoDaysAgo(365)}`,
);
await measure("search q=company 42 (common)", `/api/admin/signups?limit=${PAGE}&q=${encodeURIComponent("Company 42")}`);
await measure(
  "search q=bench-987654@ (one row)",
  `/api/admin/signups?limit=${PAGE}&q=${encodeURIComponent("bench-987654@")}`,
);
await measure(
  "counts per month, filter role",
  `/api/admin/signups/counts?interval=month&role=${encodeURIComponent("Tech Lead")}`,
);

function isoDaysAgo(days) {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

await db.query("update sessions set revoked_at = now() where token_hash = $1", [
  createHash("sha256").update(token).digest("hex"),
]);
await db.end();

console.log(
  `\nadmin API over ${ROWS.toLocaleString("en-US")} signups (PostgreSQL, ${SAMPLES} sequential requests each, ms):`,
);
console.log(`${"".padEnd(46)}${"rows".padStart(6)}${"p50".padStart(9)}${"p95".padStart(9)}`);
for (const { label, rows, p50, p95 } of results) {
  console.log(
    `${label.padEnd(46)}${String(rows).padStart(6)}${p50.toFixed(1).padStart(9)}${p95.toFixed(1).padStart(9)}`,
  );
}
process.exit(0);
