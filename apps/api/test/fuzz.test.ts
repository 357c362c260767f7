/**
 * Generated bad requests against every operation of the OpenAPI document (paths under /api; the /oidc
 * development issuer is not part of the API): malformed JSON, wrong content types, wrong JSON types per
 * field, missing and extra fields, 100 KB+ strings, unicode/emoji/RTL/NUL strings, path traversal and
 * SQL-looking path and query values, wrong methods, absurd Authorization and Idempotency-Key headers.
 *
 * Asserted for every answer: never a 5xx; every error (status ≥ 400) is JSON `{ success: false, error }`;
 * no stack trace or source path in any body.
 *
 * Seeded PRNG: the seed is printed; FLOTILLA_FUZZ_SEED=<seed> replays a run. FLOTILLA_STRESS=1 sends
 * ≥ 10,000 requests instead of ≥ 1,000.
 */
import { randomInt } from "node:crypto";
import { METHODS } from "node:http";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validSignup } from "./fixtures";
import { browseDevSignIn, devSignIn } from "./helpers/dev-sign-in";
import { apiOperations, type JsonSchema, type Operation } from "./helpers/openapi";
import { prng, type Random } from "./helpers/prng";
import { createTestApp } from "./helpers/test-app";

const STRESS = process.env.FLOTILLA_STRESS === "1";
const RANDOM_REQUESTS = STRESS ? 10_000 : 1_000;
// The default run is reproducible (a fixed seed, so CI cannot turn red by chance); the stress run explores
// a new seed every time.
const DEFAULT_SEED = 20_261_123;
const SEED = process.env.FLOTILLA_FUZZ_SEED
  ? Number(process.env.FLOTILLA_FUZZ_SEED)
  : STRESS
    ? randomInt(2 ** 31)
    : DEFAULT_SEED;
const CONCURRENCY = 16;

// ── Nasty values ──────────────────────────────────────────────────────────────────────────────────

const NASTY_STRINGS: readonly string[] = [
  "",
  " ",
  "\t\r\n",
  "\u0000",
  "a\u0000b",
  "\u0000".repeat(64),
  "\u202eevil\u202c.exe", // right-to-left override
  "مرحبا بالعالم", // Arabic, RTL
  "שָׁלוֹם",
  "🚀🔥💥👩‍👩‍👧‍👦🏳️‍🌈",
  "\ud800", // lone high surrogate
  "\udfff\ud800",
  "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇",
  "\u200b\u200c\u200d\ufeff\u2060",
  "\uffff\ufffe\ufdd0",
  "\u2028\u2029",
  "'; DROP TABLE licenses; --",
  "' OR '1'='1",
  '" OR ""="',
  "1; SELECT pg_sleep(10); --",
  "$1",
  "%s%s%s%n%x",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose.
  "{{7*7}}${7*7}<%= 7*7 %>",
  "<script>alert(1)</script>",
  "javascript:alert(1)",
  "../../../../etc/passwd",
  "..\\..\\..\\windows\\win.ini",
  "%2e%2e%2f%2e%2e%2f",
  "__proto__",
  "constructor",
  "null",
  "undefined",
  "NaN",
  "-1",
  "1e309",
  "\\",
  "\\u0000",
  "FLOT-00000-00000-00000-00000-00000",
  "flot-zzzzz-zzzzz-zzzzz-zzzzz-zzzzz",
  "\r\nX-Injected: yes",
  "x".repeat(1_000),
  "é".repeat(5_000),
  "🚀".repeat(2_000),
];

const WRONG_TYPES: Record<string, readonly unknown[]> = {
  string: [null, true, false, 0, -1, 1.5, 1e308, [], ["a"], {}, { $gt: "" }, [[[[]]]]],
  integer: [null, true, "1", "", "1e3", 1.5, -1, 0, 2 ** 53 + 2, 1e308, -1e308, [], {}, [1], "NaN"],
  number: [null, true, "1", "", [], {}, [1]],
  boolean: [null, 0, 1, "true", "false", "", [], {}, [true]],
  object: [null, true, 0, "x", [], [{}]],
};

const HEADER_SAFE_NASTY = [
  "",
  " ",
  "x",
  "short",
  "a".repeat(129),
  "a".repeat(100_000),
  "'; DROP TABLE idempotency_keys; --",
  "\u00ff\u00fe\u00fd\u00fc\u00fb\u00fa\u00f9\u00f8",
  "../../../etc/passwd",
  "%00%00%00%00%00%00%00%00",
  "null",
  "\tleading-tab-value",
];

const MALFORMED_JSON: readonly string[] = [
  "{",
  "}",
  "[",
  '{"a":',
  "{'a':1}",
  "{a:1}",
  '{"a":1,}',
  "[1,2",
  "nul",
  "undefined",
  "NaN",
  '"unterminated',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  "\ufeff{}",
  "{}garbage",
  "{}{}",
  "\u0000",
  " ",
  "",
  "1e99999",
  "-",
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  `${"[".repeat(20_000)}${"]".repeat(20_000)}`,
  `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`,
  "null",
  "true",
  "42",
  '"a string"',
  "[]",
  '[{"a":1}]',
];

const CONTENT_TYPES: readonly string[] = [
  "text/plain",
  "text/plain; charset=utf-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=----x",
  "application/xml",
  "text/html",
  "application/octet-stream",
  "image/png",
  "application/json; charset=utf-16",
  "application/json; charset=klingon",
  "application/jsonx",
  "application/vnd.api+json",
  "application/problem+json",
  "APPLICATION/JSON",
  `application/json;${" a=b;".repeat(2_000)}`,
  "*/*",
  "application/json, text/plain",
  "json",
  ";",
  "\u00ffapplication/json",
];

const PATH_NASTY: readonly { value: string; raw: boolean }[] = [
  { value: "..", raw: true },
  { value: "../..", raw: false },
  { value: "..%2F..%2F..%2Fetc%2Fpasswd", raw: true },
  { value: "%2e%2e%2f%2e%2e%2fetc%2fpasswd", raw: true },
  { value: "..%5c..%5cwindows%5cwin.ini", raw: true },
  { value: "%c0%ae%c0%ae%c0%af", raw: true }, // overlong UTF-8 dots
  { value: "%00", raw: true },
  { value: "a%00b", raw: true },
  { value: "%", raw: true },
  { value: "%E0%A4%A", raw: true }, // truncated escape
  { value: "%ED%A0%80", raw: true }, // encoded lone surrogate
  { value: "' OR 1=1 --", raw: false },
  { value: "1 UNION SELECT license_key FROM licenses", raw: false },
  { value: "'; DROP TABLE machines; --", raw: false },
  { value: "*", raw: true },
  { value: ";", raw: true },
  { value: "🚀🔥", raw: false },
  { value: "\u202eevil", raw: false },
  { value: "x".repeat(200), raw: true },
  { value: "x".repeat(500), raw: true },
  { value: "x".repeat(100_000), raw: true },
  { value: "CON", raw: true },
  { value: " ", raw: false },
  { value: "%20", raw: true },
  { value: "a/b", raw: false },
];

const QUERY_NASTY: readonly string[] = [
  "days=1e400",
  "days=-1",
  "days=NaN",
  "days=0x10",
  "days=1;DROP TABLE validation_rollups",
  "days=1&days=2",
  "days[]=1",
  "days[$gt]=0",
  "__proto__[admin]=1",
  "constructor[prototype][admin]=1",
  "token=%E0%A4%A",
  "token=%",
  "token=' OR 1=1 --",
  "token=..%2F..%2Fetc%2Fpasswd",
  "token=%00%00%00%00%00%00%00%00%00%00",
  `token=${"a".repeat(100_000)}`,
  "state=%2F%2Fevil.example&redirectUrl=https%3A%2F%2Fevil.example",
  `state=${encodeURIComponent("é".repeat(60_000))}`,
  "state=%F0%9F%9A%80%E2%80%AE",
  "a=1&a=2&a=3",
  "=&&=&",
  "?",
  "%26%3D",
  `${"x=1&".repeat(5_000)}y=2`,
];

// ── The scene: a customer with a license and a bound machine, so that some requests get deep ──────

let app: FastifyInstance;
let close: () => Promise<void>;
let operations: Operation[];
const scene = { token: "", sessionToken: "", key: "", machine: "fuzz-machine-0001" };
let counter = 0;

beforeAll(async () => {
  ({ app, close } = await createTestApp());
  operations = (await apiOperations(app)).filter((op) => op.path.startsWith("/api/") && !op.path.startsWith("/oidc"));
  scene.token = (await devSignIn(app, { email: "fuzz@example.com", name: "Fuzz Owner" })).token;
  scene.sessionToken = (await devSignIn(app, { email: "fuzz-sessions@example.com", name: "Fuzz Sessions" })).token;
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: { authorization: `Bearer ${scene.token}` },
    payload: { tier: "free" },
  });
  scene.key = created.json().data.license.license_key;
  await app.inject({
    method: "POST",
    url: "/api/license/validate",
    payload: { license_key: scene.key, machine_id: scene.machine },
  });
  console.info(
    `fuzz seed ${SEED} — replay with FLOTILLA_FUZZ_SEED=${SEED}; ${RANDOM_REQUESTS} random requests${STRESS ? " (stress)" : ""}`,
  );
});
afterAll(async () => close());

/** A valid body per operation (so that one mutation reaches the deeper checks); the schema otherwise. */
const BASELINES: Record<string, () => Record<string, unknown>> = {
  "POST /api/signup": () => validSignup({ email: `fuzz${++counter}@example.com` }),
  "POST /api/newsletter": () => ({ email: `fuzz${++counter}@example.com`, source: "blog" }),
  "POST /api/auth/google/url": () => ({ state: "/dashboard", redirectUrl: "http://localhost:3000/auth/callback" }),
  "POST /api/auth/google/callback": () => ({ code: "fuzz-code-0001", state: "fuzz-state-0001" }),
  "POST /api/license/validate": () => ({ license_key: scene.key, machine_id: `fuzz-machine-${counter++ % 5}` }),
  "POST /api/license/usage": () => ({
    license_key: scene.key,
    machine_id: scene.machine,
    executions: 1,
    feature: "fuzzing",
  }),
  "POST /api/customer/licenses": () => ({ tier: "free" }),
};

/** Values of path and query parameters by name that the service accepts. */
const PARAM_BASELINES: Record<string, () => string> = {
  licenseKey: () => scene.key,
  machineId: () => scene.machine,
  days: () => "30",
  token: () => "not-a-real-unsubscribe-token",
  state: () => "/dashboard",
  redirectUrl: () => "http://localhost:3000/auth/callback",
};

/** A value that fits a schema, for operations no baseline describes (a new route is fuzzed too). */
function sample(schema: JsonSchema | undefined, random: Random): unknown {
  if (!schema) return "x";
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return random.pick(schema.enum);
  if (schema.const !== undefined) return schema.const;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) return sample(random.pick(variants), random);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    case "array":
      return [sample(schema.items, random)];
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, inner]) => [name, sample(inner, random)]),
      );
    default:
      if (schema.format === "email" || schema.pattern?.includes("@")) return `fuzz${++counter}@example.com`;
      return "x".repeat(Math.max(1, schema.minLength ?? 1));
  }
}

function baselineBody(operation: Operation, random: Random): Record<string, unknown> {
  const fromTable = BASELINES[operation.key];
  if (fromTable) return fromTable();
  return (sample(operation.body ?? undefined, random) as Record<string, unknown>) ?? {};
}

function paramValue(name: string, schema: JsonSchema, random: Random): string {
  return PARAM_BASELINES[name]?.() ?? String(sample(schema, random));
}

// ── One generated request ─────────────────────────────────────────────────────────────────────────

interface Case {
  description: string;
  options: InjectOptions;
}

function jsonType(schema: JsonSchema | undefined): string {
  const type = Array.isArray(schema?.type) ? schema?.type[0] : schema?.type;
  return type && type in WRONG_TYPES ? type : "string";
}

function hugeString(random: Random): string {
  const unit = random.pick(["A", "é", "🚀", "\u202e", "\u0000", "'"]);
  return unit.repeat(Math.ceil((100_000 + random.int(0, 50_000)) / unit.length));
}

const CATEGORIES = [
  "malformed-json",
  "content-type",
  "wrong-field-type",
  "missing-field",
  "extra-field",
  "nasty-string",
  "huge-string",
  "near-limit-string",
  "body-not-object",
  "path-param",
  "query",
  "wrong-method",
  "authorization",
  "idempotency-key",
  "other-headers",
] as const;
type Category = (typeof CATEGORIES)[number];

/** Logout (everywhere) and refresh end the session they are called with: they get their own, revived after each batch. */
function tokenFor(operation: Operation): string {
  return /^POST \/api\/auth\/(logout|logout-all|refresh)$/.test(operation.key) ? scene.sessionToken : scene.token;
}

function generate(operation: Operation, category: Category, random: Random): Case {
  const pathValues: Record<string, { value: string; raw: boolean }> = {};
  for (const param of operation.pathParams) {
    pathValues[param.name] = { value: paramValue(param.name, param.schema, random), raw: false };
  }
  const query: string[] = [];
  for (const param of operation.queryParams) {
    if (param.required || random.chance(0.5)) {
      query.push(
        `${encodeURIComponent(param.name)}=${encodeURIComponent(paramValue(param.name, param.schema, random))}`,
      );
    }
  }
  let method = operation.method;
  const headers: Record<string, string> = {};
  // Guarded operations: usually a valid session (the checks behind the guard run), sometimes none.
  const token = tokenFor(operation);
  if (operation.bearer && random.chance(0.75)) headers.authorization = `Bearer ${token}`;
  let body: Record<string, unknown> | null = operation.body ? baselineBody(operation, random) : null;
  let rawBody: string | undefined;
  let detail = "";

  const fields = operation.body?.properties ? Object.keys(operation.body.properties) : [];
  const field = fields.length ? random.pick(fields) : "field";

  switch (category) {
    case "malformed-json":
      rawBody = random.pick(MALFORMED_JSON);
      headers["content-type"] = "application/json";
      detail = JSON.stringify(rawBody.slice(0, 40));
      break;
    case "content-type":
      rawBody = JSON.stringify(body ?? {});
      headers["content-type"] = random.pick(CONTENT_TYPES);
      detail = JSON.stringify(headers["content-type"].slice(0, 60));
      break;
    case "wrong-field-type": {
      const value = random.pick(WRONG_TYPES[jsonType(operation.body?.properties?.[field])]!);
      body = { ...(body ?? {}), [field]: value };
      detail = `${field}=${JSON.stringify(value)}`;
      break;
    }
    case "missing-field": {
      const required = operation.body?.required ?? [];
      const drop = random.chance(0.3) ? [...required] : [required.length ? random.pick(required) : field];
      body = Object.fromEntries(Object.entries(body ?? {}).filter(([name]) => !drop.includes(name)));
      detail = `without ${drop.join(",")}`;
      break;
    }
    case "extra-field": {
      const name = random.pick(["extra", "is_admin", "customer_id", "$where", "x".repeat(1_000), "🚀", "", " "]);
      if (random.chance(0.3)) {
        // Prototype-poisoning keys can only be written as raw JSON.
        const base = JSON.stringify(body ?? {});
        const poison = `"${random.pick(["__proto__", "constructor"])}":{"admin":true,"prototype":{"admin":true}}`;
        rawBody = base === "{}" ? `{${poison}}` : `${base.slice(0, -1)},${poison}}`;
        headers["content-type"] = "application/json";
        detail = "prototype key";
      } else {
        body = { ...(body ?? {}), [name]: random.pick([...NASTY_STRINGS, 1, null, { nested: true }]) };
        detail = `+${JSON.stringify(name.slice(0, 20))}`;
      }
      break;
    }
    case "nasty-string": {
      const value = random.pick(NASTY_STRINGS);
      body = { ...(body ?? {}), [field]: value };
      detail = `${field}=${JSON.stringify(value.slice(0, 30))}`;
      break;
    }
    case "huge-string":
      body = { ...(body ?? {}), [field]: hugeString(random) };
      detail = `${field}=100KB+`;
      break;
    case "near-limit-string":
      // Under the 64 KB body limit, so the schema's length checks answer rather than the limit.
      body = { ...(body ?? {}), [field]: random.pick(["a", "é", "🚀"]).repeat(random.int(200, 15_000)) };
      detail = `${field}=long`;
      break;
    case "body-not-object":
      rawBody = JSON.stringify(random.pick([[], [body], "text", 42, null, true, [[[[body]]]]]));
      headers["content-type"] = "application/json";
      detail = rawBody.slice(0, 30);
      break;
    case "path-param": {
      if (operation.pathParams.length === 0) {
        // No parameter: traverse from the path itself.
        const suffix = random.pick(PATH_NASTY);
        return {
          description: `${operation.key} path+${JSON.stringify(suffix.value.slice(0, 30))}`,
          options: {
            method: method as "GET",
            url: `${operation.path}/${suffix.raw ? suffix.value : encodeURIComponent(suffix.value)}`,
            headers,
          },
        };
      }
      const param = random.pick(operation.pathParams);
      pathValues[param.name] = random.pick(PATH_NASTY);
      detail = `{${param.name}}=${JSON.stringify(pathValues[param.name]!.value.slice(0, 30))}`;
      break;
    }
    case "query": {
      const extra = random.pick(QUERY_NASTY);
      if (random.chance(0.5)) query.length = 0;
      query.push(extra);
      detail = `?${extra.slice(0, 40)}`;
      break;
    }
    case "wrong-method": {
      const documented = operations.filter((op) => op.path === operation.path).map((op) => op.method);
      method = random.pick(METHODS.filter((m) => m !== "CONNECT" && !documented.includes(m)));
      detail = method;
      break;
    }
    case "authorization":
      headers.authorization = random.pick([
        "",
        "Bearer",
        "Bearer ",
        `Bearer  ${token}`,
        `bearer ${token}`,
        `Bearer ${"x".repeat(100_000)}`,
        `Bearer ${token} extra`,
        `Bearer ${token},${token}`,
        "Basic Og==",
        "Bearer ' OR 1=1 --",
        "Bearer ../../etc/passwd",
        "Bearer \u00ff\u00fe\u00fd\u00fc\u00fb\u00fa\u00f9\u00f8\u00f7\u00f6\u00f5\u00f4\u00f3\u00f2\u00f1\u00f0\u00ef\u00ee\u00ed\u00ec",
        "Digest username=x, realm=y",
        `Bearer ${"A".repeat(20)}`,
        `Bearer ${"A".repeat(201)}`,
        "Bearer null",
        "Negotiate YIIB",
        `Bearer\t${token}`,
        `Token ${token}`,
      ]);
      detail = JSON.stringify(headers.authorization.slice(0, 30));
      break;
    case "idempotency-key":
      headers["idempotency-key"] = random.chance(0.2)
        ? `fuzz-key-${random.int(0, 20)}`
        : random.pick(HEADER_SAFE_NASTY);
      detail = JSON.stringify(headers["idempotency-key"].slice(0, 30));
      break;
    case "other-headers": {
      const [name, value] = random.pick<[string, string]>([
        ["accept", "application/xml"],
        ["accept", "*/*;q=abc, text/html;q=-1"],
        ["accept-encoding", "br;q=abc, gzip;q=-1, *;q=1e9"],
        ["content-encoding", "gzip"],
        ["content-encoding", "deflate, br, identity, zstd"],
        ["content-length", "5"],
        ["transfer-encoding", "chunked"],
        ["x-forwarded-for", "'; DROP TABLE sessions; --, 999.1.1.1, ::ffff:zz"],
        ["x-forwarded-proto", "gopher"],
        ["x-forwarded-host", "evil.example"],
        ["host", "evil.example"],
        ["host", "\u00e9vil.example:99999"],
        ["origin", "https://evil.example"],
        ["cookie", `session=${"c".repeat(8_000)}`],
        ["range", "bytes=0-1,-1,99999999999-"],
        ["if-none-match", '"*", W/"x"'],
        ["accept-language", "x".repeat(10_000)],
        ["user-agent", HEADER_SAFE_NASTY[5]!],
      ]);
      headers[name] = value;
      detail = `${name}: ${value.slice(0, 30)}`;
      break;
    }
  }

  const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const fill = pathValues[name]!;
    return fill.raw ? fill.value : encodeURIComponent(fill.value);
  });
  const url = query.length ? `${path}?${query.join("&")}` : path;
  const options: InjectOptions = { method: method as "GET", url, headers };
  if (rawBody !== undefined) options.payload = rawBody;
  else if (body !== null && method !== "GET" && method !== "HEAD") options.payload = body;
  return { description: `${operation.key} [${category}] ${detail}`, options };
}

// ── Checking an answer ────────────────────────────────────────────────────────────────────────────

const STACK_TRACE = [/\n\s+at [^\n]+[:(]\d+/, /node_modules/, /\/work\//, /\.(ts|js|mjs):\d+/, /\bError: [^"]*\n/];

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  failures: string[];
}

function newTally(): Tally {
  return { requests: 0, byStatus: new Map(), failures: [] };
}

function check(tally: Tally, description: string, method: string, response: LightMyRequestResponse) {
  tally.requests += 1;
  tally.byStatus.set(response.statusCode, (tally.byStatus.get(response.statusCode) ?? 0) + 1);
  const fail = (why: string) =>
    tally.failures.push(`${description} → ${response.statusCode} ${why}: ${response.body.slice(0, 300)}`);
  if (response.statusCode >= 500) fail("server error");
  if (response.headers["x-content-type-options"] !== "nosniff") fail("no X-Content-Type-Options: nosniff");
  for (const pattern of STACK_TRACE) if (pattern.test(response.body)) fail(`body matches ${pattern}`);
  if (response.statusCode < 400 || method === "HEAD") return;
  if (!String(response.headers["content-type"] ?? "").startsWith("application/json")) {
    fail(`content-type ${response.headers["content-type"]}`);
    return;
  }
  let parsed: unknown;
  try {
    parsed = response.json();
  } catch {
    fail("body is not JSON");
    return;
  }
  const error = parsed as { success?: unknown; error?: unknown };
  if (error.success !== false || typeof error.error !== "string" || error.error.length === 0) {
    fail("not { success: false, error }");
  }
}

/** Keeps the session the logout/refresh cases use alive: they end it whenever they succeed. */
async function reviveSessionToken() {
  const probe = await app.inject({
    url: "/api/auth/validate",
    headers: { authorization: `Bearer ${scene.sessionToken}` },
  });
  if (probe.statusCode !== 200) {
    scene.sessionToken = (await devSignIn(app, { email: "fuzz-sessions@example.com", name: "Fuzz Sessions" })).token;
  }
}

async function run(tally: Tally, cases: Case[]) {
  for (let start = 0; start < cases.length; start += CONCURRENCY) {
    const batch = cases.slice(start, start + CONCURRENCY);
    const responses = await Promise.all(
      batch.map(async (item) => {
        try {
          return await app.inject(item.options);
        } catch (error) {
          tally.failures.push(`${item.description} → the request could not be sent: ${(error as Error).message}`);
          return null;
        }
      }),
    );
    responses.forEach((response, i) => {
      if (response) check(tally, batch[i]!.description, String(batch[i]!.options.method), response);
    });
    if (batch.some((item) => /auth\/(logout|logout-all|refresh)/.test(String(item.options.url))))
      await reviveSessionToken();
  }
}

async function report(tally: Tally, label: string) {
  // The harness itself: the main session must have survived, or most guarded requests stopped at the guard.
  const alive = await app.inject({ url: "/api/auth/validate", headers: { authorization: `Bearer ${scene.token}` } });
  expect(alive.statusCode, "the fuzzing session was ended by a generated request").toBe(200);
  const statuses = [...tally.byStatus].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
  console.info(`${label}: ${tally.requests} requests (seed ${SEED}) — ${statuses.join(" ")}`);
  expect(
    tally.failures,
    `seed ${SEED}: ${tally.failures.length} bad answers; replay with FLOTILLA_FUZZ_SEED=${SEED}`,
  ).toEqual([]);
}

describe(`fuzzing every API operation (seed ${SEED})`, () => {
  it("covers the operations of the document", () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
    expect(operations.every((op) => op.path.startsWith("/api/"))).toBe(true);
  });

  it(`${RANDOM_REQUESTS} random bad requests: no 5xx, errors are { success: false, error } JSON, no stack traces`, {
    timeout: STRESS ? 600_000 : 60_000,
  }, async () => {
    const random = prng(SEED);
    const tally = newTally();
    const cases: Case[] = [];
    for (let i = 0; i < RANDOM_REQUESTS; i++) {
      // Round robin over operations, so that each gets its share whatever the document holds.
      const operation = operations[i % operations.length]!;
      cases.push(generate(operation, random.pick(CATEGORIES), random));
    }
    await run(tally, cases);
    report(tally, "random");
    expect(tally.requests).toBeGreaterThanOrEqual(RANDOM_REQUESTS);
  });

  it("every category against every operation, at least once", { timeout: 60_000 }, async () => {
    const random = prng(SEED ^ 0x5eed);
    const tally = newTally();
    const cases = operations.flatMap((operation) =>
      CATEGORIES.map((category) => generate(operation, category, random)),
    );
    await run(tally, cases);
    await report(tally, "every category × operation");
  });

  it("every HTTP method on every documented path", { timeout: 60_000 }, async () => {
    const tally = newTally();
    const paths = [...new Set(operations.map((op) => op.path))];
    const cases: Case[] = [];
    for (const path of paths) {
      const operation = operations.find((op) => op.path === path)!;
      const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
        encodeURIComponent(PARAM_BASELINES[name]?.() ?? "x"),
      );
      for (const method of METHODS.filter((m) => m !== "CONNECT")) {
        cases.push({
          description: `${method} ${path}`,
          options: {
            method: method as "GET",
            url,
            headers: operation.bearer ? { authorization: `Bearer ${tokenFor(operation)}` } : {},
          },
        });
      }
    }
    await run(tally, cases);
    await report(tally, "methods × paths");
  });

  it("identity claims are input too: a NUL in the issuer's name or email is a 4xx, never a 5xx", async () => {
    // The development issuer's form is the identity provider here; what it signs reaches the database.
    for (const [email, name] of [
      ["claims-nul@example.com", "Nul\u0000Name"],
      ["claims\u0000nul@example.com", "Nul Email"],
      ["claims-rtl@example.com", "\u202eRTL 🚀 مرحبا"],
    ] as const) {
      // The development issuer's form may refuse such a name itself (a 400 page): also a 4xx, never a 5xx.
      const browsed = await browseDevSignIn(app, { email, name }).catch((error: Error) => error);
      if (browsed instanceof Error) {
        expect(browsed.message).toMatch(/: 400 /);
        continue;
      }
      const { code, state, cookie } = browsed;
      const response = await app.inject({
        method: "POST",
        url: "/api/auth/google/callback",
        payload: { code, state },
        headers: { cookie },
      });
      expect(response.statusCode, response.body).toBeLessThan(500);
      if (response.statusCode === 200) expect(response.json().data.customer.name).not.toContain("\u0000");
      else expect(response.json()).toMatchObject({ success: false, error: expect.any(String) });
    }
  });
});
