/**
 * IDOR matrix, generated from the OpenAPI document: every operation that declares bearer security or
 * takes a path parameter is called by customer B against customer A's resources (A owns a license with
 * three bound machines and usage; B owns a license too). Addressing A's resources answers 403/404;
 * operations on "my own account" answer B's data only. Nothing B sees contains A's license key, machine
 * ids or names, email, name or ids. Without a token every such call is a 401.
 *
 * A new bearer endpoint, or a new path parameter, fails this file until MATRIX (and PATH_VALUES) say how
 * to call it — the list comes from the document, not from this file.
 */
import { sql } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { apiOperations, type Operation, operationUrl } from "./helpers/openapi";
import { createTestApp } from "./helpers/test-app";

const { app, close } = await createTestApp();
afterAll(async () => close());
const operations = await apiOperations(app);

interface Party {
  token: string;
  customerId: string;
  email: string;
  name: string;
  licenseId: string;
  licenseKey: string;
  machines: { id: string; name: string }[];
  feature: string;
  /** An execution running on the party's first machine. */
  executionId: string;
}

let a: Party;
let b: Party;

/**
 * How B calls each guarded operation. `foreign`: the path names a resource, and B addresses A's → 403/404.
 * `own`: the operation acts on the caller's own account → the listed statuses, with B's data only.
 * `consumesSession`: the call ends the session it is made with (each such call gets a fresh B session).
 */
type Entry =
  | { kind: "foreign"; query?: Record<string, string>; body?: unknown }
  /**
   * Authenticated by a license key and machine (`Authorization: License <key>`, the updater feeds), not by a
   * session: B's session is refused (401). Another license's machine is tested in releases-updates.test.ts.
   */
  | { kind: "license"; query?: Record<string, string>; body?: unknown }
  /** A capability link (a signed download token): a guessed or altered one is gone (410), whoever asks. */
  | { kind: "capability"; statuses: number[]; query?: Record<string, string>; body?: unknown }
  /** An admin operation: B (a customer, not an admin) gets 403 whatever it addresses. */
  | { kind: "admin"; query?: Record<string, string>; body?: unknown }
  | {
      kind: "own";
      statuses: number[];
      query?: Record<string, string>;
      body?: unknown;
      consumesSession?: boolean;
      /** The call ends every session of the caller (B signs in again afterwards). */
      consumesAllSessions?: boolean;
      /** What B's own answer must show (it is B's, not A's). */
      // biome-ignore lint/suspicious/noExplicitAny: the answers of several operations, read field by field.
      isB?: (json: any) => void;
    };

const MATRIX: Record<string, Entry> = {
  "GET /api/auth/validate": {
    kind: "own",
    statuses: [200],
    isB: (json) => expect(json.user).toMatchObject({ id: b.customerId, email: b.email }),
  },
  "POST /api/auth/logout": { kind: "own", statuses: [200], consumesSession: true },
  "POST /api/auth/logout-all": {
    kind: "own",
    statuses: [200],
    consumesSession: true,
    consumesAllSessions: true,
    isB: (json) => expect(json.revoked).toBeGreaterThanOrEqual(1),
  },
  // Without the browser's sign-in cookie a token is never adopted; A's token is not even tried by B.
  "POST /api/auth/adopt": { kind: "own", statuses: [401] },
  "POST /api/auth/refresh": {
    kind: "own",
    statuses: [200],
    consumesSession: true,
    isB: (json) => expect(json.data.token).toEqual(expect.any(String)),
  },
  "GET /api/auth/profile": {
    kind: "own",
    statuses: [200],
    isB: (json) => expect(json.data).toMatchObject({ id: b.customerId, email: b.email, name: b.name }),
  },
  "GET /api/customer/dashboard": {
    kind: "own",
    statuses: [200],
    isB: (json) => {
      expect(json.data.customer.email).toBe(b.email);
      expect(json.data.licenses.map((license: { license_key: string }) => license.license_key)).toEqual([b.licenseKey]);
      expect(json.data.usage_analytics.total_executions).toBe(7);
    },
  },
  // B already has their license: a second one is refused, and never becomes A's.
  "POST /api/customer/licenses": { kind: "own", statuses: [409], body: { tier: "free" } },
  "GET /api/license/machines/{licenseKey}": { kind: "foreign" },
  "GET /api/license/machines/{licenseKey}/analytics": { kind: "foreign", query: { days: "30" } },
  "DELETE /api/license/machines/{licenseKey}/{machineId}": { kind: "foreign" },
  "POST /api/license/machines/{licenseKey}/{machineId}/restore": { kind: "foreign" },
  "POST /api/license/machines/{licenseKey}/{machineId}/revoke": { kind: "foreign" },
  // B turning files on for A's license would let B's copy of a leaked key check files out.
  "PUT /api/customer/licenses/{licenseKey}/offline-files": { kind: "foreign", body: { allowed: true } },
  // B rotating A's key would hand B a working key to A's license: refused like every foreign call.
  "POST /api/customer/licenses/{licenseKey}/rotate": { kind: "foreign" },
  "DELETE /api/customer/licenses/{licenseKey}/refusals": { kind: "foreign" },
  // B's own stream: without Accept: text/event-stream it is refused before anything streams (406), never A's.
  "GET /api/customer/events": { kind: "own", statuses: [406] },
  // Ending A's execution from B's session: 404, and A's execution keeps running.
  "DELETE /api/customer/licenses/{licenseKey}/executions/{executionId}": { kind: "foreign" },
  // The desktop calls name the lease in the path and prove who asks in the body: B's key cannot touch A's lease.
  "POST /api/license/executions/{executionId}/heartbeat": {
    kind: "foreign",
    get body() {
      return { license_key: b.licenseKey, machine_id: b.machines[0]!.id };
    },
  },
  "POST /api/license/executions/{executionId}/end": {
    kind: "foreign",
    get body() {
      return { license_key: b.licenseKey, machine_id: b.machines[0]!.id };
    },
  },
  // The portal's downloads: B's own license, never A's.
  "GET /api/customer/downloads": {
    kind: "own",
    statuses: [200],
    isB: (json) => expect(json.data.license_key).toBe(b.licenseKey),
  },
  "GET /api/license/updates/tauri/{target}/{arch}/{currentVersion}": { kind: "license" },
  "GET /api/license/updates/artifacts/{artifactId}/download": { kind: "license" },
  "GET /api/downloads/{token}": { kind: "capability", statuses: [410] },
  "GET /api/customer/activity": {
    kind: "own",
    statuses: [200],
    isB: (json) => expect(json.data.length).toBeGreaterThanOrEqual(1),
  },
  ...Object.fromEntries(
    [
      "GET /api/admin/me",
      "GET /api/admin/admins",
      "POST /api/admin/admins",
      "POST /api/admin/admins/revoke",
      "GET /api/admin/signups",
      "GET /api/admin/signups/counts",
      "GET /api/admin/signups/export",
      "GET /api/admin/subscribers",
      "GET /api/admin/subscribers/export",
      "GET /api/admin/customers",
      "GET /api/admin/customers/{customerId}",
      "POST /api/admin/customers/{customerId}/sign-out-everywhere",
      "POST /api/admin/licenses/{licenseKey}/actions",
      "POST /api/admin/licenses/{licenseKey}/machines/{machineId}/revoke",
      "POST /api/admin/licenses/{licenseKey}/executions/{executionId}/end",
      "POST /api/admin/privacy/export",
      "POST /api/admin/privacy/erase",
      "GET /api/admin/audit",
      "GET /api/admin/webhooks",
      "POST /api/admin/webhooks",
      "GET /api/admin/webhooks/{endpointId}",
      "PATCH /api/admin/webhooks/{endpointId}",
      "DELETE /api/admin/webhooks/{endpointId}",
      "POST /api/admin/webhooks/{endpointId}/rotate-secret",
      "POST /api/admin/webhooks/{endpointId}/test",
      "GET /api/admin/webhooks/{endpointId}/deliveries",
      "POST /api/admin/webhooks/{endpointId}/deliveries/{deliveryId}/resend",
      // Distribution (decision 0059): B, a customer, is no operator and no admin.
      "POST /api/admin/releases",
      "GET /api/admin/releases",
      "GET /api/admin/releases/{releaseId}",
      "POST /api/admin/releases/{releaseId}/artifacts",
      "DELETE /api/admin/releases/{releaseId}/artifacts/{artifactId}",
      "GET /api/admin/uploads/{uploadId}",
      "PATCH /api/admin/uploads/{uploadId}",
      "POST /api/admin/uploads/{uploadId}/parts",
      "POST /api/admin/uploads/{uploadId}/complete",
      "POST /api/admin/releases/{releaseId}/publish",
      "POST /api/admin/releases/{releaseId}/yank",
      "POST /api/admin/releases/{releaseId}/promote",
      "GET /api/admin/operator-tokens",
      "POST /api/admin/operator-tokens",
      "DELETE /api/admin/operator-tokens/{tokenId}",
      "GET /api/admin/downloads/platforms",
      "PUT /api/admin/downloads/platforms/{platform}",
      "GET /api/admin/beta/waves",
      "POST /api/admin/beta/waves",
      "GET /api/admin/beta/candidates",
      "GET /api/admin/beta/waves/{waveId}/invitations",
      "POST /api/admin/beta/waves/{waveId}/admit",
      "POST /api/admin/beta/invitations/{invitationId}/resend",
      "POST /api/admin/beta/invitations/{invitationId}/withdraw",
    ].map((key) => [
      key,
      {
        kind: "admin" as const,
        body: key.startsWith("POST /api/admin/admins")
          ? { email: "attacker@example.com", reason: "attacker" }
          : key.endsWith("/actions")
            ? { action: "suspend", reason: "attacker" }
            : key.endsWith("/revoke") || key.endsWith("/end")
              ? { reason: "attacker" }
              : key.startsWith("POST /api/admin/privacy/")
                ? { email: "someone@example.com", reason: "attacker" }
                : key === "POST /api/admin/webhooks"
                  ? { url: "http://127.0.0.1:9/x", events: ["license.created"] }
                  : key === "PATCH /api/admin/webhooks/{endpointId}"
                    ? { enabled: false }
                    : key === "POST /api/admin/releases"
                      ? { version: "6.6.6", channel: "stable" }
                      : key === "POST /api/admin/operator-tokens"
                        ? { name: "attacker" }
                        : key.startsWith("PUT /api/admin/downloads/")
                          ? { open: true }
                          : key === "POST /api/admin/beta/waves"
                            ? { name: "attacker wave", date: "2026-12-01" }
                            : key.endsWith("/admit")
                              ? { signup_ids: ["00000000-0000-4000-8000-000000000005"] }
                              : key.endsWith("/withdraw")
                                ? { reason: "attacker" }
                                : key.startsWith("POST /api/admin/") && key.includes("{")
                                  ? {}
                                  : undefined,
      },
    ]),
  ),
};

/**
 * Values for each path parameter name: A's resources (as stored, and spelled differently — the server
 * normalises keys), plus B's, so that mixed calls (B's key with A's machine) are tried too.
 */
const PATH_VALUES: Record<string, () => { value: string; owner: "A" | "B" }[]> = {
  licenseKey: () => [
    { value: a.licenseKey, owner: "A" },
    { value: a.licenseKey.toLowerCase(), owner: "A" },
    { value: ` ${a.licenseKey} `, owner: "A" },
    { value: b.licenseKey, owner: "B" },
  ],
  machineId: () => [
    ...a.machines.map((machine) => ({ value: machine.id, owner: "A" as const })),
    { value: b.machines[0]!.id, owner: "B" },
  ],
  customerId: () => [
    { value: a.customerId, owner: "A" },
    { value: b.customerId, owner: "B" },
  ],
  executionId: () => [
    { value: a.executionId, owner: "A" },
    { value: b.executionId, owner: "B" },
  ],
  endpointId: () => [{ value: "00000000-0000-4000-8000-000000000001", owner: "A" }],
  releaseId: () => [{ value: "00000000-0000-4000-8000-000000000003", owner: "A" }],
  uploadId: () => [{ value: "00000000-0000-4000-8000-000000000004", owner: "A" }],
  tokenId: () => [{ value: "00000000-0000-4000-8000-000000000005", owner: "A" }],
  artifactId: () => [{ value: "00000000-0000-4000-8000-000000000006", owner: "A" }],
  platform: () => [{ value: "macos", owner: "A" }],
  target: () => [{ value: "darwin", owner: "A" }],
  arch: () => [{ value: "aarch64", owner: "A" }],
  currentVersion: () => [{ value: "1.0.0", owner: "A" }],
  token: () => [{ value: "eyJhIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDA2In0.AAAA", owner: "A" }],
  deliveryId: () => [{ value: "00000000-0000-4000-8000-000000000002", owner: "A" }],
  waveId: () => [{ value: "00000000-0000-4000-8000-000000000003", owner: "A" }],
  invitationId: () => [{ value: "00000000-0000-4000-8000-000000000004", owner: "A" }],
};

/** Every combination of path values that touches at least one of A's resources. */
function foreignCalls(operation: Operation): Record<string, string>[] {
  let combos: { values: Record<string, string>; touchesA: boolean }[] = [{ values: {}, touchesA: false }];
  for (const param of operation.pathParams) {
    const fill = PATH_VALUES[param.name];
    if (!fill) throw new Error(`PATH_VALUES has no values for {${param.name}} (${operation.key})`);
    combos = combos.flatMap((combo) =>
      fill().map((option) => ({
        values: { ...combo.values, [param.name]: option.value },
        touchesA: combo.touchesA || option.owner === "A",
      })),
    );
  }
  return combos.filter((combo) => combo.touchesA).map((combo) => combo.values);
}

/** A's identifying data: none of it may appear in anything B receives. */
function secretsOfA(): string[] {
  return [
    a.licenseKey,
    a.licenseKey.toLowerCase(),
    a.licenseId,
    a.customerId,
    a.email,
    a.email.toLowerCase(),
    a.name,
    a.token,
    a.feature,
    a.executionId,
    ...a.machines.flatMap((machine) => [machine.id, machine.name]),
  ];
}

function expectNoSecretsOfA(response: LightMyRequestResponse, label: string) {
  const body = response.body;
  const headers = JSON.stringify(response.headers);
  for (const secret of secretsOfA()) {
    expect(body.includes(secret), `${label}: the body contains A's ${JSON.stringify(secret)}`).toBe(false);
    expect(headers.includes(secret), `${label}: a header contains A's ${JSON.stringify(secret)}`).toBe(false);
  }
}

function request(operation: Operation, pathValues: Record<string, string>, entry: Entry, token?: string) {
  return app.inject({
    method: operation.method as "GET",
    url: operationUrl(operation, pathValues, entry.query),
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    ...(entry.body === undefined ? {} : { payload: entry.body as Record<string, unknown> }),
  });
}

async function party(email: string, name: string, machines: { id: string; name: string }[], feature: string) {
  const signedIn = await devSignIn(app, { email, name });
  const bearer = { authorization: `Bearer ${signedIn.token}` };
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: bearer,
    payload: { tier: "free" },
  });
  expect(created.statusCode).toBe(200);
  const license = created.json().data.license;
  for (const machine of machines) {
    const validated = await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: license.license_key, machine_id: machine.id, machine_name: machine.name },
    });
    expect(validated.json().data.code).toBe("VALID");
    const usage = await app.inject({
      method: "POST",
      url: "/api/license/usage",
      payload: { license_key: license.license_key, machine_id: machine.id, executions: 7, feature },
    });
    expect(usage.statusCode).toBe(200);
  }
  const started = await app.inject({
    method: "POST",
    url: "/api/license/executions",
    payload: { license_key: license.license_key, machine_id: machines[0]!.id },
  });
  expect(started.statusCode).toBe(200);
  return {
    token: signedIn.token,
    customerId: signedIn.customer.id,
    email,
    name,
    licenseId: license.id,
    licenseKey: license.license_key,
    machines,
    feature,
    executionId: started.json().data.execution.id,
  } satisfies Party;
}

/** What A owns, read as A: it must be the same before and after B's attempts. */
async function snapshotOfA() {
  const bearer = { authorization: `Bearer ${a.token}` };
  const machines = (await app.inject({ url: `/api/license/machines/${a.licenseKey}`, headers: bearer })).json().data;
  const dashboard = (await app.inject({ url: "/api/customer/dashboard", headers: bearer })).json().data;
  const rows = (await app.database.db.execute(
    sql`select count(*)::int as n from machines where license_id = ${a.licenseId}`,
  )) as unknown as { rows: { n: number }[] };
  return {
    machineIds: machines.machines.map((machine: { machine_id: string }) => machine.machine_id).sort(),
    machineRows: rows.rows[0]!.n,
    licenses: dashboard.licenses.map((license: { license_key: string; status: string }) => [
      license.license_key,
      license.status,
    ]),
    usage: dashboard.usage_analytics,
    running: dashboard.licenses.map((license: { executions: { running: { id: string }[] } }) =>
      license.executions.running.map((execution) => execution.id),
    ),
  };
}

const guarded = operations.filter((operation) => operation.bearer || operation.pathParams.length > 0);
let before: Awaited<ReturnType<typeof snapshotOfA>>;
let calls = 0;

beforeAll(async () => {
  a = await party(
    "alice.anders@example.com",
    "Alice Anders-Quill",
    [
      { id: "alice-laptop-7f3e91", name: "Alice Private MacBook" },
      { id: "alice-buildbox-2c44d0", name: "Alice Build Server" },
      { id: "alice-desktop-b81a5e", name: "Alice Home Desktop" },
    ],
    "alice-secret-feature",
  );
  b = await party(
    "bob.brennan@example.com",
    "Bob Brennan-Stone",
    [{ id: "bob-workstation-01", name: "Bob Workstation" }],
    "bob-feature",
  );
  before = await snapshotOfA();
  expect(before.machineIds).toHaveLength(3);
});

describe("IDOR matrix from the OpenAPI document", () => {
  it("finds the guarded operations in the document, and MATRIX lists exactly those", () => {
    expect(guarded.length).toBeGreaterThanOrEqual(9);
    const documented = guarded.map((operation) => operation.key).sort();
    const missing = documented.filter((key) => !(key in MATRIX));
    expect(missing, "guarded operations without a MATRIX entry (add one)").toEqual([]);
    expect(Object.keys(MATRIX).sort(), "MATRIX entries that are no longer in the document").toEqual(documented);
    // Every path parameter of every operation has fill values.
    const params = [...new Set(guarded.flatMap((operation) => operation.pathParams.map((p) => p.name)))];
    expect(params.filter((name) => !(name in PATH_VALUES))).toEqual([]);
  });

  it("every bearer operation documents its 401, and no other operation answers 401 without a token", async () => {
    for (const operation of operations) {
      if (operation.bearer || operation.licenseAuth) {
        expect(operation.responses, operation.key).toContain("401");
        continue;
      }
      // An undocumented guard would hide a route from this matrix.
      const pathValues = Object.fromEntries(operation.pathParams.map((p) => [p.name, "probe"]));
      const response = await app.inject({
        method: operation.method as "GET",
        url: operationUrl(operation, pathValues),
        ...(operation.body ? { payload: {} } : {}),
      });
      expect(response.statusCode, `${operation.key} answers 401 but does not declare bearer security`).not.toBe(401);
    }
  });

  describe.each(guarded.map((operation) => [operation.key, operation] as const))("%s", (_key, operation) => {
    it("as customer B against customer A's resources: 403/404, or B's own data only", async () => {
      const entry = MATRIX[operation.key];
      expect(entry, `MATRIX has no entry for ${operation.key}`).toBeDefined();
      if (!entry) return;
      if (entry.kind === "admin") {
        const combos = operation.pathParams.length > 0 ? foreignCalls(operation) : [{}];
        for (const pathValues of combos) {
          const label = `${operation.key} ${JSON.stringify(pathValues)}`;
          const response = await request(operation, pathValues, entry, b.token);
          calls += 1;
          expect(response.statusCode, `${label} answered ${response.statusCode}: ${response.body}`).toBe(403);
          expect(response.json()).toMatchObject({ success: false, error: expect.any(String) });
          expectNoSecretsOfA(response, label);
        }
      } else if (entry.kind === "license" || entry.kind === "capability") {
        const combos = operation.pathParams.length > 0 ? foreignCalls(operation) : [{}];
        for (const pathValues of combos) {
          const label = `${operation.key} ${JSON.stringify(pathValues)}`;
          const response = await request(operation, pathValues, entry, b.token);
          calls += 1;
          const expected = entry.kind === "license" ? [401] : entry.statuses;
          expect(expected, `${label} answered ${response.statusCode}: ${response.body}`).toContain(response.statusCode);
          expect(response.json()).toMatchObject({ success: false, error: expect.any(String) });
          expectNoSecretsOfA(response, label);
        }
      } else if (entry.kind === "foreign") {
        const combos = foreignCalls(operation);
        expect(combos.length).toBeGreaterThan(0);
        for (const pathValues of combos) {
          const label = `${operation.key} ${JSON.stringify(pathValues)}`;
          const response = await request(operation, pathValues, entry, b.token);
          calls += 1;
          expect([403, 404], `${label} answered ${response.statusCode}: ${response.body}`).toContain(
            response.statusCode,
          );
          expect(response.json()).toMatchObject({ success: false, error: expect.any(String) });
          expectNoSecretsOfA(response, label);
        }
      } else {
        expect(operation.pathParams, "an 'own' operation addresses no resource by path").toEqual([]);
        const token = entry.consumesSession ? (await devSignIn(app, { email: b.email, name: b.name })).token : b.token;
        const response = await request(operation, {}, entry, token);
        calls += 1;
        expect(entry.statuses, `${operation.key} answered ${response.statusCode}: ${response.body}`).toContain(
          response.statusCode,
        );
        expectNoSecretsOfA(response, operation.key);
        entry.isB?.(response.json());
        if (entry.consumesAllSessions) b.token = (await devSignIn(app, { email: b.email, name: b.name })).token;
      }
    });

    it("the same calls without a token, or with a malformed or unknown one: 401", async () => {
      const entry = MATRIX[operation.key];
      if (!entry || !operation.bearer) return;
      const combos = entry.kind === "own" || operation.pathParams.length === 0 ? [{}] : foreignCalls(operation);
      for (const pathValues of combos) {
        for (const headers of [
          {},
          { authorization: "Bearer" },
          { authorization: `Basic ${Buffer.from("alice:secret").toString("base64")}` },
          { authorization: `Bearer ${"x".repeat(43)}` },
          { authorization: `Bearer ${a.token}x` },
        ]) {
          const response = await app.inject({
            method: operation.method as "GET",
            url: operationUrl(operation, pathValues, entry.query),
            headers,
            ...(entry.body === undefined ? {} : { payload: entry.body as Record<string, unknown> }),
          });
          calls += 1;
          const label = `${operation.key} ${JSON.stringify(pathValues)} ${JSON.stringify(headers).slice(0, 40)}`;
          expect(response.statusCode, `${label}: ${response.body}`).toBe(401);
          expect(response.json()).toMatchObject({ success: false, error: expect.any(String) });
          expect(response.headers["www-authenticate"]).toMatch(/^Bearer /);
          expectNoSecretsOfA(response, label);
        }
      }
    });
  });

  it("A's license, machines, usage and session are untouched afterwards", async () => {
    const after = await snapshotOfA();
    expect(after).toEqual(before);
    expect(after.machineRows).toBe(3);
    const validate = await app.inject({ url: "/api/auth/validate", headers: { authorization: `Bearer ${a.token}` } });
    expect(validate.statusCode).toBe(200);
    expect(validate.json().user.email).toBe(a.email);
    // The matrix actually ran (the figure the report quotes).
    expect(calls).toBeGreaterThanOrEqual(100);
    console.info(`IDOR matrix: ${guarded.length} guarded operations, ${calls} calls`);
  });
});
