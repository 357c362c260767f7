/** The desktop SDK (packages/license-client) against the real service on a loopback port. */

import { EXECUTION_MESSAGES } from "@flotilla/contracts/executions";
import {
  ExecutionEndedError,
  ExecutionLimitError,
  LicenseAnswerError,
  LicenseApiError,
  LicenseClient,
  LicenseManager,
  LicenseSession,
  LicenseTokenError,
  MemoryStateStore,
  type TrustedKey,
  trustedKey,
  verifyLicenseToken,
} from "@flotilla/license-client";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { setStatus } from "./helpers/license-status";
import { allowOfflineFiles } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
let baseUrl: string;
let licenseKey: string;
let bearer: { authorization: string };
/** What a publisher pins when building the SDK: the public half of the server's signing key. */
let pinned: TrustedKey[];

beforeAll(async () => {
  ({ app, close } = await createTestApp());
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = address;
  const { token } = await devSignIn(app, { email: "sdk@example.com", name: "SDK Tester" });
  bearer = { authorization: `Bearer ${token}` };
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: bearer,
    payload: { tier: "free" },
  });
  licenseKey = created.json().data.license.license_key;
  await allowOfflineFiles(app, token, licenseKey, true);
  pinned = [trustedKey((await app.inject("/api/license/public-key")).json().data.jwk.x)];
});
afterAll(async () => close());

describe("license-client against the service", () => {
  it("activates, verifies the token offline, reports usage once per idempotent call", async () => {
    const client = new LicenseClient({ baseUrl, trustedKeys: pinned });
    const manager = new LicenseManager({
      client,
      store: new MemoryStateStore(),
      machineId: () => "desktop-sdk-1",
      trustedKeys: pinned,
      appVersion: "1.2.3",
    });
    const activation = await manager.activate(licenseKey.toLowerCase());
    expect(activation).toMatchObject({ activated: true, result: { code: "VALID" } });

    const validation = await client.validate({ license_key: licenseKey, machine_id: "desktop-sdk-1" });
    expect(validation.code).toBe("VALID");
    const offline = await verifyLicenseToken(validation.token!, pinned, {
      machineId: "desktop-sdk-1",
      licenseKey,
    });
    expect(offline.ok).toBe(true);
    expect(offline.ok && offline.expiresAt.getTime() - offline.issuedAt.getTime()).toBe(7 * 24 * 60 * 60 * 1000);
    const wrongMachine = await verifyLicenseToken(validation.token!, pinned, {
      machineId: "desktop-other",
      licenseKey,
    });
    expect(wrongMachine.ok).toBe(false);

    await manager.report(5, "task-execution");
    await manager.report(7, "memory-search");
    const dashboard = (await app.inject({ url: "/api/customer/dashboard", headers: bearer })).json().data;
    expect(dashboard.usage_analytics.total_executions).toBe(12);
    expect(dashboard.usage_analytics.most_used_features).toEqual(["memory-search", "task-execution"]);

    const check = await manager.check();
    expect(check).toMatchObject({ mode: "online", valid: true, code: "VALID" });
  });

  it("an SDK built without this server's key trusts none of its tokens", async () => {
    const manager = new LicenseManager({
      client: new LicenseClient({ baseUrl, trustedKeys: pinned }),
      store: new MemoryStateStore(),
      machineId: () => "desktop-sdk-unpinned",
      trustedKeys: [],
    });
    await expect(manager.activate(licenseKey)).rejects.toBeInstanceOf(LicenseTokenError);
  });

  it("reports the server's codes for unknown licenses", async () => {
    const client = new LicenseClient({ baseUrl, trustedKeys: pinned });
    const result = await client.validate({
      license_key: "FLOT-00000-00000-00000-00000-00000",
      machine_id: "desktop-x",
    });
    expect(result).toMatchObject({ valid: false, code: "NOT_FOUND" });
  });
});

describe("seats, files and signed answers through the SDK", () => {
  async function freshLicense(email: string) {
    const { token } = await devSignIn(app, { email, name: email });
    const headers = { authorization: `Bearer ${token}` };
    const created = await app.inject({
      method: "POST",
      url: "/api/customer/licenses",
      headers,
      payload: { tier: "free" },
    });
    const key = created.json().data.license.license_key as string;
    await allowOfflineFiles(app, token, key, true);
    return { key, headers };
  }
  const managerFor = (machineId: string, store = new MemoryStateStore(), now?: () => Date) =>
    new LicenseManager({
      client: new LicenseClient({ baseUrl, trustedKeys: pinned }),
      store,
      machineId: () => machineId,
      trustedKeys: pinned,
      ...(now ? { now } : {}),
    });

  it("heartbeats keep the slot; deactivate frees it on the server and forgets it here", async () => {
    const { key, headers } = await freshLicense("sdk-seats@example.com");
    const manager = managerFor("sdk-seat-1");
    await manager.activate(key);
    const beat = await manager.heartbeat();
    expect(beat).toMatchObject({ mode: "online", valid: true, code: "VALID", heartbeatIntervalSeconds: 900 });
    const released = await manager.deactivate();
    expect(released).toEqual({ released: true, deactivationsLeft: 4, forgotten: true });
    const machines = (await app.inject({ url: `/api/license/machines/${key}`, headers })).json().data;
    expect(machines.current_count).toBe(0);
    // Deactivating again: nothing held here, nothing sent.
    expect(await manager.deactivate()).toEqual({ released: false, deactivationsLeft: null, forgotten: false });
  });

  it("entitlements come from signed data only: hasFeature and maxConcurrentExecutions", async () => {
    const { key } = await freshLicense("sdk-features@example.com");
    const store = new MemoryStateStore();
    const manager = managerFor("sdk-features-1", store);
    expect(await manager.maxConcurrentExecutions()).toBe(0);
    await manager.activate(key);
    expect(await manager.maxConcurrentExecutions()).toBe(1);
    expect(await manager.hasFeature("sharedMemory")).toBe(false);
    // Writing "sharedMemory: true" into the state file grants nothing.
    const state = (await store.read())!;
    await store.write({
      ...state,
      license: { ...state.license!, features: { ...state.license!.features, sharedMemory: true } },
    });
    expect(await manager.hasFeature("sharedMemory")).toBe(false);
  });

  it("checkout: a license file keeps the app valid offline after its token expired, until the file does", async () => {
    const { key } = await freshLicense("sdk-file@example.com");
    let clock = new Date();
    const store = new MemoryStateStore();
    const manager = managerFor("sdk-file-1", store, () => clock);
    await manager.activate(key);
    const { expiresAt } = await manager.checkout(20 * 86_400);
    expect(Math.round((expiresAt.getTime() - Date.now()) / 86_400_000)).toBe(20);
    // Ten days on, offline: the token (7 days) has expired, the file holds.
    clock = new Date(Date.now() + 10 * 86_400_000);
    const tenDays = await manager.verifyOffline();
    expect(tenDays).toMatchObject({ valid: true, source: "license-file", license: { tier: "free" } });
    // Clock set back before the last check: refused.
    clock = new Date(Date.now() + 2 * 86_400_000);
    expect((await manager.verifyOffline()).valid).toBe(false);
    // Past the file's end: not valid.
    clock = new Date(Date.now() + 21 * 86_400_000);
    expect((await manager.verifyOffline()).valid).toBe(false);
  });

  it("a license file altered, or copied to another machine, is refused", async () => {
    const { key } = await freshLicense("sdk-file-tamper@example.com");
    const manager = managerFor("sdk-file-2");
    await manager.activate(key);
    const { file } = await manager.checkout();
    const elsewhere = managerFor("sdk-file-other");
    await expect(elsewhere.importLicenseFile(file, key)).rejects.toBeInstanceOf(LicenseTokenError);
    const flipped = { ...file, ciphertext: `${file.ciphertext.slice(0, -2)}AA` };
    await expect(managerFor("sdk-file-2").importLicenseFile(flipped, key)).rejects.toBeInstanceOf(LicenseTokenError);
    // A file signed by a key this build does not trust is refused even when it opens.
    const untrusting = new LicenseManager({
      client: new LicenseClient({ baseUrl, trustedKeys: pinned }),
      store: new MemoryStateStore(),
      machineId: () => "sdk-file-2",
      trustedKeys: [trustedKey("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")],
    });
    await expect(untrusting.importLicenseFile(file, key)).rejects.toThrow(/does not trust/);
  });

  it("an air-gapped machine: request file → exchange elsewhere → import, valid offline", async () => {
    const { key, headers } = await freshLicense("sdk-airgap@example.com");
    const offline = managerFor("sdk-airgapped");
    const request = offline.activationRequest(key, "Lab machine");
    const answer = await new LicenseClient({ baseUrl, trustedKeys: pinned }).exchangeActivationRequest(request);
    expect(answer.code).toBe("VALID");
    const check = await offline.importLicenseFile(answer.license_file!, key);
    expect(check).toMatchObject({ mode: "offline", valid: true, source: "license-file" });
    const machines = (await app.inject({ url: `/api/license/machines/${key}`, headers })).json().data;
    expect(machines.machines[0]).toMatchObject({ machine_id: "sdk-airgapped", machine_name: "Lab machine" });
  });

  it("from a license file alone, deleting or garbling the time of the last check does not hide a clock set back (launch review 2)", async () => {
    const { key } = await freshLicense("sdk-airgap-clock@example.com");
    const start = Date.now();
    let clock = new Date(start);
    const store = new MemoryStateStore();
    const offline = managerFor("sdk-airgapped-clock", store, () => clock);
    const answer = await new LicenseClient({ baseUrl, trustedKeys: pinned }).exchangeActivationRequest(
      offline.activationRequest(key),
    );
    await offline.importLicenseFile(answer.license_file!, key);
    expect((await store.read())?.token).toBeNull();
    // Day 20 of a 30-day file: valid, and remembered as the latest time seen.
    clock = new Date(start + 20 * 86_400_000);
    expect(await offline.verifyOffline()).toMatchObject({ valid: true, source: "license-file" });
    // Day 31: expired.
    clock = new Date(start + 31 * 86_400_000);
    expect((await offline.verifyOffline()).valid).toBe(false);
    // Back to day 10: the record of day 20 catches it…
    clock = new Date(start + 10 * 86_400_000);
    expect(await offline.verifyOffline()).toMatchObject({ valid: false, reason: "clock_rollback" });
    // …and without that record the check fails closed too, as the token path does.
    const state = (await store.read())!;
    for (const last_checked_at of [null, "not-a-date"]) {
      await store.write({ ...state, last_checked_at });
      expect(await offline.verifyOffline(), String(last_checked_at)).toMatchObject({
        valid: false,
        reason: "clock_rollback",
      });
      expect(await offline.check(), String(last_checked_at)).toMatchObject({ valid: false });
    }
  });

  it("a local proxy cannot turn SUSPENDED into VALID, nor replay an earlier VALID", async () => {
    const { key } = await freshLicense("sdk-proxy@example.com");
    let recorded: { body: string; headers: Headers } | null = null;
    let mode: "record" | "forge" | "replay" = "record";
    const proxy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = await response.text();
      if (mode === "record") recorded = { body, headers: response.headers };
      if (mode === "replay" && recorded) return new Response(recorded.body, { status: 200, headers: recorded.headers });
      const forged =
        mode === "forge" ? body.replace('"valid":false', '"valid":true').replace('"SUSPENDED"', '"VALID"') : body;
      return new Response(forged, { status: response.status, headers: response.headers });
    };
    const client = new LicenseClient({ baseUrl, trustedKeys: pinned, fetch: proxy, retries: 0 });
    expect((await client.validate({ license_key: key, machine_id: "proxied" })).code).toBe("VALID");
    await app.inject({ method: "POST", url: "/api/license/validate", payload: { license_key: key, machine_id: "x" } });
    await setStatus(app, key, "suspended");
    await app.licensing.changed(key);
    mode = "forge";
    await expect(client.validate({ license_key: key, machine_id: "proxied" })).rejects.toBeInstanceOf(
      LicenseAnswerError,
    );
    mode = "replay";
    await expect(client.validate({ license_key: key, machine_id: "proxied" })).rejects.toMatchObject({
      reason: "wrong_request",
    });
    mode = "record";
    expect((await client.validate({ license_key: key, machine_id: "proxied" })).code).toBe("SUSPENDED");
  });

  it("a session checks, heartbeats on the server's interval, and tells the app when the verdict changes", async () => {
    const { key, headers } = await freshLicense("sdk-session@example.com");
    const manager = managerFor("sdk-session-1");
    await manager.activate(key);
    const timers: { ms: number; run: () => void }[] = [];
    const session = new LicenseSession(manager, {
      setTimeout: (run, ms) => timers.push({ ms, run }),
      clearTimeout: () => {},
    });
    const changes: string[] = [];
    session.onStatusChange((status) => changes.push(`${status.mode}:${status.code}`));
    await session.start();
    expect(changes).toEqual(["online:VALID"]);
    expect(timers.at(-1)!.ms).toBe(900_000);
    expect(session.maxConcurrentExecutions).toBe(1);
    expect(session.hasFeature("backups")).toBe(false);
    // The owner removes the device: the next heartbeat says so, once, and the loop stops.
    await manager.activate(key).then(() => undefined);
    await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: key, machine_id: "keeper" },
    });
    await app.inject({ method: "DELETE", url: `/api/license/machines/${key}/sdk-session-1`, headers });
    await session.beat();
    expect(changes).toEqual(["online:VALID", "online:MACHINE_REMOVED"]);
    expect(session.nextHeartbeatInMs).toBeNull();
    expect(session.maxConcurrentExecutions).toBe(0);
    session.stop();
  });

  it("the deactivation cap reaches the app as DEACTIVATION_LIMIT, and the activation is kept", async () => {
    const { key } = await freshLicense("sdk-cap@example.com");
    const store = new MemoryStateStore();
    const manager = managerFor("sdk-cap-1", store);
    for (let i = 0; i < 5; i++) {
      await manager.activate(key);
      expect((await manager.deactivate()).released).toBe(true);
    }
    await manager.activate(key);
    await expect(manager.deactivate()).rejects.toMatchObject({ status: 429, code: "DEACTIVATION_LIMIT" });
    expect(await store.read()).not.toBeNull();
    expect(LicenseApiError).toBeDefined();
  });
});

describe("execution leases through the SDK (decision 0048)", () => {
  async function freshLicense(email: string) {
    const { token } = await devSignIn(app, { email, name: email });
    const headers = { authorization: `Bearer ${token}` };
    const created = await app.inject({
      method: "POST",
      url: "/api/customer/licenses",
      headers,
      payload: { tier: "free" },
    });
    return { key: created.json().data.license.license_key as string, headers };
  }
  const managerFor = (machineId: string) =>
    new LicenseManager({
      client: new LicenseClient({ baseUrl, trustedKeys: pinned }),
      store: new MemoryStateStore(),
      machineId: () => machineId,
      trustedKeys: pinned,
    });
  const dashboard = async (headers: Record<string, string>) =>
    (await app.inject({ url: "/api/customer/dashboard", headers })).json().data;

  it("runExecution: one lease across machines, a heartbeat, counted once by the server when it ends, no usage report", async () => {
    const { key, headers } = await freshLicense("sdk-executions@example.com");
    const a = managerFor("sdk-exec-a");
    const b = managerFor("sdk-exec-b");
    await a.activate(key, { machineName: "Studio Mac" });
    await b.activate(key, { machineName: "Laptop" });
    const before = (await dashboard(headers)).usage_analytics.total_executions;

    const result = await a.runExecution(
      async (execution) => {
        expect(execution).toMatchObject({ mode: "online", feature: "code-review", running: 1, limit: 1 });
        await execution.heartbeat();
        expect((await dashboard(headers)).licenses[0].executions.running).toEqual([
          expect.objectContaining({ id: execution.id, machine_name: "Studio Mac", feature: "code-review" }),
        ]);
        const listed = await b.runningExecutions();
        expect(listed.running).toEqual([expect.objectContaining({ id: "", this_machine: false })]);
        // The second machine is refused, with the contract's message and who holds the slot.
        const refused = await b.runExecution(() => "never").catch((error) => error);
        expect(refused).toBeInstanceOf(ExecutionLimitError);
        expect(refused.message).toBe(EXECUTION_MESSAGES.limit(1));
        expect(refused.running).toEqual([expect.objectContaining({ machineName: "Studio Mac" })]);
        expect(refused.oldestExpiresAt).toEqual(execution.expiresAt);
        return "reviewed";
      },
      { feature: "code-review" },
    );
    expect(result).toBe("reviewed");

    const after = await dashboard(headers);
    expect(after.licenses[0].executions.running).toEqual([]);
    expect(after.usage_analytics.total_executions).toBe(before + 1);
    expect(after.usage_analytics.most_used_features).toContain("code-review");
    // The slot is free: the other machine runs now, and an error in its task still ends the lease.
    await expect(
      b.runExecution(() => {
        throw new Error("agent failed");
      }),
    ).rejects.toThrow("agent failed");
    expect((await dashboard(headers)).licenses[0].executions.running).toEqual([]);
    expect((await dashboard(headers)).usage_analytics.total_executions).toBe(before + 2);
  });

  it("an execution its owner ends from the dashboard aborts its signal within a second (its watch), then ends as stopped", async () => {
    const { key, headers } = await freshLicense("sdk-executions-owner@example.com");
    const manager = managerFor("sdk-exec-owner");
    await manager.activate(key);
    const execution = await manager.startExecution({ feature: "batch-run" });
    const ended = await app.inject({
      method: "DELETE",
      url: `/api/customer/licenses/${key}/executions/${execution.id}`,
      headers,
    });
    expect(ended.statusCode).toBe(200);
    const endedAt = Date.now();
    await new Promise<void>((resolve) =>
      execution.signal.aborted
        ? resolve()
        : execution.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    // Far below the next heartbeat (60 s): the watch told it (a busy machine is slow, not broken).
    expect(Date.now() - endedAt).toBeLessThan(5_000);
    expect(execution.signal.reason).toMatchObject({ code: "EXECUTION_ENDED" });
    expect((execution.signal.reason as Error).message).toContain("owner");
    await expect(execution.heartbeat()).rejects.toBeInstanceOf(ExecutionEndedError);
    // Until the app says it has stopped, the slot is held; then it is free.
    expect((await dashboard(headers)).licenses[0].executions.running).toEqual([
      expect.objectContaining({ id: execution.id, status: "stopping" }),
    ]);
    expect(await execution.end()).toMatchObject({ confirmed: true, endReason: "ended_by_owner" });
    expect((await dashboard(headers)).licenses[0].executions.running).toEqual([]);
  });
});

describe("the example desktop app (packages/license-client/examples/node-app)", () => {
  it("activates, gates features from signed data, hears a suspension, and frees its slot on quit", async () => {
    const { startDesktopApp } = await import("../../../packages/license-client/examples/node-app/app");
    const { token } = await devSignIn(app, { email: "example-app@example.com", name: "Example App" });
    const headers = { authorization: `Bearer ${token}` };
    const key = (
      await app.inject({ method: "POST", url: "/api/customer/licenses", headers, payload: { tier: "free" } })
    ).json().data.license.license_key as string;
    const lines: string[] = [];
    const desktop = await startDesktopApp({
      server: baseUrl,
      licenseKey: key,
      store: new MemoryStateStore(),
      trustedKeys: pinned,
      machineId: () => "example-app-machine",
      log: (line) => lines.push(line),
    });
    expect(desktop.events).toEqual(["license valid (online, free tier)"]);
    expect(desktop.agentSlots()).toBe(1);
    expect(desktop.canShareMemory()).toBe(false);

    // An agent task runs under an execution lease; while it runs, the same license on another computer is refused
    // and shows the plan's message.
    const other = await startDesktopApp({
      server: baseUrl,
      licenseKey: key,
      store: new MemoryStateStore(),
      trustedKeys: pinned,
      machineId: () => "example-app-other",
      log: () => {},
    });
    const run = await desktop.runAgent("code-review", async (execution) => {
      const refused = await other.runAgent("code-review", async () => "never");
      expect(refused).toEqual({ ran: false, refusal: expect.stringContaining(EXECUTION_MESSAGES.limit(1)) });
      expect(other.events.at(-1)).toContain("Running on: Example desktop app");
      return execution.signal.aborted ? "lost" : "reviewed";
    });
    expect(run).toEqual({ ran: true, result: "reviewed" });
    expect(lines.some((line) => line.startsWith("agent running (online"))).toBe(true);
    await other.quit({ release: true });

    await setStatus(app, key, "suspended");
    await app.licensing.changed(key);
    await desktop.session.beat();
    expect(desktop.events.at(-1)).toMatch(/^license not valid: SUSPENDED/);
    expect(desktop.agentSlots()).toBe(0);

    await setStatus(app, key, "active");
    await app.licensing.changed(key);
    await desktop.session.beat();
    await desktop.quit({ release: true });
    expect(lines.at(-1)).toBe("slot freed for another computer");
    const machines = (await app.inject({ url: `/api/license/machines/${key}`, headers })).json().data;
    expect(machines.current_count).toBe(0);
  });
});

/** Runs the CLI in-process as `machine`, with its state file `state` in `dir`, against this service. */
function cliIn(dir: string) {
  return async (argv: string[], machine: string, state: string) => {
    const { main } = await import("../../../packages/license-client/src/cli");
    const { join } = await import("node:path");
    let stdout = "";
    let stderr = "";
    const code = await main(argv, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: { FLOTILLA_LICENSE_STATE: join(dir, state), FLOTILLA_MACHINE_ID: machine, FLOTILLA_SERVER: baseUrl },
      client: { sleep: async () => {} },
      build: { kind: "development", trustedKeys: pinned },
    });
    return { code, stdout, stderr };
  };
}

describe("flotilla-license CLI against the service: files both ways, heartbeat, deactivate", () => {
  it("request → exchange → import on an air-gapped machine; checkout, features, heartbeat, deactivate on a connected one", async () => {
    const { mkdtemp, readFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "flotilla-cli-files-"));
    const { token } = await devSignIn(app, { email: "cli-files@example.com", name: "CLI Files" });
    const key = (
      await app.inject({
        method: "POST",
        url: "/api/customer/licenses",
        headers: { authorization: `Bearer ${token}` },
        payload: { tier: "free" },
      })
    ).json().data.license.license_key as string;
    await allowOfflineFiles(app, token, key, true);
    const run = cliIn(dir);
    try {
      const request = join(dir, "request.json");
      const answer = join(dir, "license-file.json");
      expect((await run(["request", key, "--out", request], "cli-airgap", "airgap.json")).code).toBe(0);
      expect(JSON.parse(await readFile(request, "utf8"))).toMatchObject({ machine_id: "cli-airgap" });
      const exchanged = await run(["exchange", request, "--out", answer, "--ttl", "45d"], "elsewhere", "other.json");
      expect(exchanged).toMatchObject({ code: 0 });
      const imported = await run(["import", answer, key, "--json"], "cli-airgap", "airgap.json");
      expect(JSON.parse(imported.stdout)).toMatchObject({ valid: true, mode: "offline" });
      // On another machine the same file is worthless.
      expect((await run(["import", answer, key], "cli-thief", "thief.json")).code).not.toBe(0);

      expect((await run(["activate", key], "cli-online", "online.json")).code).toBe(0);
      expect((await run(["heartbeat", "--json"], "cli-online", "online.json")).stdout).toContain('"code": "VALID"');
      const features = JSON.parse((await run(["features", "--json"], "cli-online", "online.json")).stdout);
      expect(features.features).toMatchObject({ maxConcurrentExecutions: 1, sharedMemory: false });
      const checkout = await run(["checkout", "--ttl", "30d", "--json"], "cli-online", "online.json");
      expect(checkout.code).toBe(0);
      expect((await run(["checkout", "--ttl", "400d"], "cli-online", "online.json")).code).toBe(2);
      // Its license file holds the slot: the app cannot free it (a copy of the file would keep running).
      const held = await run(["deactivate", "--json"], "cli-online", "online.json");
      expect(held.code).toBe(1);
      expect(held.stdout).toContain("LICENSE_FILE_ACTIVE");
      const forgotten = JSON.parse(
        (await run(["deactivate", "--local", "--json"], "cli-online", "online.json")).stdout,
      );
      expect(forgotten).toMatchObject({ released: false, forgotten: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("executions: run holds a lease while its command runs; a second machine's start exits 4 naming the holder", async () => {
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "flotilla-cli-executions-"));
    const { token } = await devSignIn(app, { email: "cli-executions@example.com", name: "CLI Executions" });
    const headers = { authorization: `Bearer ${token}` };
    const key = (
      await app.inject({ method: "POST", url: "/api/customer/licenses", headers, payload: { tier: "free" } })
    ).json().data.license.license_key as string;
    const run = cliIn(dir);
    try {
      expect((await run(["activate", key, "--name", "Build box"], "cli-exec-1", "one.json")).code).toBe(0);
      expect((await run(["activate", key], "cli-exec-2", "two.json")).code).toBe(0);
      const started = await run(
        ["executions", "start", "--feature", "nightly-build", "--json"],
        "cli-exec-1",
        "one.json",
      );
      const { execution } = JSON.parse(started.stdout);
      const refused = await run(["executions", "run", "--", process.execPath, "-e", "0"], "cli-exec-2", "two.json");
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain(`EXECUTION_LIMIT: ${EXECUTION_MESSAGES.limit(1)}`);
      expect(refused.stderr).toMatch(/Running {3}Build box \(.+\), since /);
      expect((await run(["executions", "heartbeat", execution.id], "cli-exec-1", "one.json")).code).toBe(0);
      expect((await run(["executions", "end", execution.id], "cli-exec-1", "one.json")).code).toBe(0);
      const ran = await run(
        ["executions", "run", "--feature", "nightly-build", "--", process.execPath, "-e", "process.exit(6)"],
        "cli-exec-2",
        "two.json",
      );
      expect(ran.code).toBe(6);
      const dashboard = (await app.inject({ url: "/api/customer/dashboard", headers })).json().data;
      expect(dashboard.licenses[0].executions.running).toEqual([]);
      expect(dashboard.usage_analytics.total_executions).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("without the owner's consent, checkout and exchange say that license files are off and where to turn them on", async () => {
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "flotilla-cli-consent-"));
    const { token } = await devSignIn(app, { email: "cli-consent@example.com", name: "CLI Consent" });
    const key = (
      await app.inject({
        method: "POST",
        url: "/api/customer/licenses",
        headers: { authorization: `Bearer ${token}` },
        payload: { tier: "free" },
      })
    ).json().data.license.license_key as string;
    const cli = cliIn(dir);
    const run = async (argv: string[]) => {
      const { code, stdout, stderr } = await cli(argv, "consent-box", "state.json");
      return { code, output: stdout + stderr };
    };
    try {
      expect((await run(["activate", key])).code).toBe(0);
      const refused = await run(["checkout", "--ttl", "30d"]);
      expect(refused.code).not.toBe(0);
      expect(refused.output).toContain("License files are turned off for this license");
      expect(refused.output).toContain("dashboard");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
