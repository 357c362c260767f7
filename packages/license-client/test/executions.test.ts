/**
 * Execution leases through the SDK (decision 0048), against the fake server: start, heartbeats in the background,
 * end on completion and on error, a refusal as ExecutionLimitError, a lost lease as the signal's ExecutionEndedError,
 * connectivity failures that end nothing, and offline executions on a license file counted on this machine.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXECUTION_CODES, EXECUTION_MESSAGES, EXECUTION_RULES } from "@flotilla/contracts/executions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LicenseClient } from "../src/client";
import { ExecutionEndedError, ExecutionLimitError, LicenseAnswerError, LicenseNetworkError } from "../src/errors";
import { type Execution, openExecutionCount, type StartExecutionOptions } from "../src/executions";
import { LicenseManager } from "../src/license-manager";
import { localExecutionsFolder } from "../src/local-executions";
import { FileStateStore, MemoryStateStore, type StateStore } from "../src/state";
import { deadUrl, type FakeServer, KEYS, startFakeServer } from "./fake-server";

let server: FakeServer;
let dir: string;

beforeEach(async () => {
  server = await startFakeServer();
  dir = await mkdtemp(join(tmpdir(), "flotilla-executions-"));
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function manager(machineId: string, store: StateStore = new MemoryStateStore(), baseUrl = server.url) {
  return new LicenseManager({
    client: new LicenseClient({ baseUrl, sleep: async () => {}, trustedKeys: server.trustedKeys }),
    store,
    machineId: () => machineId,
    trustedKeys: server.trustedKeys,
  });
}

/** Timers the test fires by hand: `due()` is the delay of the one pending, `fire()` runs it. */
function manualTimers() {
  const pending = new Map<number, { ms: number; run: () => void }>();
  let next = 0;
  return {
    options: {
      setTimeout: (run: () => void, ms: number) => {
        next += 1;
        pending.set(next, { ms, run });
        return next;
      },
      clearTimeout: (handle: unknown) => {
        pending.delete(handle as number);
      },
    } satisfies StartExecutionOptions,
    count: () => pending.size,
    due: () => [...pending.values()].at(-1)?.ms ?? null,
    /** Runs the pending timer and waits for what it sent. */
    async fire() {
      const [id, timer] = [...pending.entries()].at(-1) ?? [];
      if (id === undefined || !timer) throw new Error("no timer pending");
      pending.delete(id);
      timer.run();
      await settle();
    },
  };
}

/** Lets the request a timer started reach the server and its answer come back. */
async function settle() {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

const paths = () => server.requests.map((r) => r.path);
const countOf = (suffix: string) => paths().filter((path) => path.endsWith(suffix)).length;

describe("LicenseClient: the execution endpoints", () => {
  it("starts, heartbeats, lists and ends a lease; answers are signed and checked", async () => {
    const m = manager("client-a");
    await m.activate(KEYS.free);
    const client = new LicenseClient({ baseUrl: server.url, trustedKeys: server.trustedKeys });
    const who = { license_key: KEYS.free, machine_id: "client-a" };
    const started = await client.startExecution({ ...who, feature: " Code-Review " });
    expect(started).toMatchObject({ running: 1, limit: 1, revived: false, execution: { feature: "code-review" } });
    expect(server.requests.at(-1)?.headers["idempotency-key"]).toEqual(expect.any(String));
    const beat = await client.executionHeartbeat(started.execution.id, who);
    expect(beat.execution.id).toBe(started.execution.id);
    const listed = await client.runningExecutions(who);
    expect(listed.running).toEqual([expect.objectContaining({ id: started.execution.id, this_machine: true })]);
    expect(await client.endExecution(started.execution.id, who)).toMatchObject({
      ended: true,
      end_reason: "completed",
    });
    await expect(client.executionHeartbeat("not-an-id", who)).rejects.toMatchObject({ field: "executionId" });
  });

  it("a 409 EXECUTION_LIMIT is an ExecutionLimitError with the holders, the limit and the contract's message", async () => {
    await manager("limit-a").activate(KEYS.free);
    await manager("limit-b").activate(KEYS.free);
    const client = new LicenseClient({ baseUrl: server.url, trustedKeys: server.trustedKeys, retries: 0 });
    const first = await client.startExecution({ license_key: KEYS.free, machine_id: "limit-a" });
    const refused = await client.startExecution({ license_key: KEYS.free, machine_id: "limit-b" }).catch((e) => e);
    expect(refused).toBeInstanceOf(ExecutionLimitError);
    expect(refused).toMatchObject({
      status: 409,
      code: EXECUTION_CODES.limit,
      limit: 1,
      source: "server",
      retryable: false,
      message: EXECUTION_MESSAGES.limit(1),
    });
    expect(refused.running).toEqual([
      {
        displayId: "M-0001",
        machineName: "Machine limit-a",
        startedAt: new Date(first.execution.started_at),
        expiresAt: new Date(first.execution.expires_at),
      },
    ]);
    expect(refused.oldestExpiresAt).toEqual(new Date(first.execution.expires_at));
    // An unsigned refusal is not believed (a proxy cannot invent holders).
    server.script("/api/license/executions", { status: 409, body: { success: false }, unsigned: true });
    await expect(client.startExecution({ license_key: KEYS.free, machine_id: "limit-b" })).rejects.toBeInstanceOf(
      LicenseAnswerError,
    );
  });
});

describe("LicenseManager.startExecution: a lease kept in the background", () => {
  it("sends heartbeats on the server's interval, and end() ends the lease, stops them and aborts the signal", async () => {
    const m = manager("beat-a");
    await m.activate(KEYS.free);
    const timers = manualTimers();
    const execution = await m.startExecution({ feature: "batch-run", ...timers.options });
    expect(execution).toMatchObject({ mode: "online", feature: "batch-run", running: 1, limit: 1, ended: false });
    expect(execution.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(execution.signal.aborted).toBe(false);
    expect(timers.due()).toBe(EXECUTION_RULES.heartbeatIntervalSeconds * 1000);
    expect(openExecutionCount()).toBe(1);

    const firstExpiry = execution.expiresAt;
    server.leases.get(execution.id)!.expires_at = new Date(Date.now() + 1_000);
    await timers.fire();
    expect(countOf("/heartbeat")).toBe(1);
    expect(execution.expiresAt.getTime()).toBeGreaterThanOrEqual(firstExpiry.getTime());
    expect(timers.due()).toBe(EXECUTION_RULES.heartbeatIntervalSeconds * 1000);
    await timers.fire();
    expect(countOf("/heartbeat")).toBe(2);

    const end = await execution.end();
    expect(end).toMatchObject({ confirmed: true, endReason: "completed", reportAsUsage: false, error: null });
    expect(server.leases.get(execution.id)?.ended).toBe("completed");
    expect(execution.ended).toBe(true);
    expect(execution.signal.aborted).toBe(true);
    expect(execution.signal.reason).toMatchObject({ name: "ExecutionEndedError", code: "COMPLETED" });
    expect(timers.count()).toBe(0);
    expect(openExecutionCount()).toBe(0);
    // Idempotent: one end request in all.
    expect(await execution.end()).toBe(end);
    expect(countOf("/end")).toBe(1);
    await expect(execution.heartbeat()).rejects.toBeInstanceOf(ExecutionEndedError);
    // Counted by the server when it ends: nothing goes to the usage endpoint.
    expect(countOf("/api/license/usage")).toBe(0);
  });

  it("a heartbeat the server cannot answer ends nothing: retried sooner, then the lease goes on (revived)", async () => {
    const m = manager("flaky-a");
    await m.activate(KEYS.free);
    const timers = manualTimers();
    const errors: unknown[] = [];
    const execution = await m.startExecution({
      ...timers.options,
      retryMs: 5_000,
      onHeartbeatError: (error) => errors.push(error),
    });
    const path = `/api/license/executions/${execution.id}/heartbeat`;
    // Three attempts of one heartbeat (the client's retries), all 503: the call fails as "cannot reach".
    server.script(path, { status: 503 }, { status: 503 }, { status: 503 });
    await timers.fire();
    expect(errors).toHaveLength(1);
    expect(execution.signal.aborted).toBe(false);
    expect(timers.due()).toBe(5_000);
    // A forged answer (not signed) is no answer either; the next retry backs off.
    server.script(path, { status: 410, body: { success: false, code: "EXECUTION_ENDED" }, unsigned: true });
    await timers.fire();
    expect(errors[1]).toBeInstanceOf(LicenseAnswerError);
    expect(execution.signal.aborted).toBe(false);
    expect(timers.due()).toBe(10_000);
    // Meanwhile the lease expired on the server; the next heartbeat revives it (a slot is free).
    server.leases.get(execution.id)!.expires_at = new Date(Date.now() - 1_000);
    await timers.fire();
    expect(execution.signal.aborted).toBe(false);
    expect(execution.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(timers.due()).toBe(EXECUTION_RULES.heartbeatIntervalSeconds * 1000);
    await execution.end();
  });

  it("the server's EXECUTION_ENDED aborts the signal with ExecutionEndedError and stops the heartbeats", async () => {
    const m = manager("ended-a");
    await m.activate(KEYS.free);
    const timers = manualTimers();
    const execution = await m.startExecution(timers.options);
    // The owner ends it from the dashboard.
    const lease = server.leases.get(execution.id)!;
    lease.ended = "ended_by_owner";
    lease.ended_at = new Date();
    await timers.fire();
    expect(execution.signal.aborted).toBe(true);
    const reason = execution.signal.reason as ExecutionEndedError;
    expect(reason).toBeInstanceOf(ExecutionEndedError);
    expect(reason).toMatchObject({ code: EXECUTION_CODES.ended, status: 410, executionId: execution.id });
    expect(reason.message).toBe(EXECUTION_MESSAGES.ended);
    expect(timers.count()).toBe(0);
    // Stopped, it still holds its slot until this app says it has stopped: end() does, and so would the exit handler.
    expect(openExecutionCount()).toBe(1);
    expect(await execution.end()).toMatchObject({ confirmed: true, endReason: "ended_by_owner" });
    expect(openExecutionCount()).toBe(0);
  });

  it("a lease that expired while its slot was taken is lost (EXECUTION_LIMIT) and ended on the server", async () => {
    const a = manager("revive-a");
    const b = manager("revive-b");
    await a.activate(KEYS.free);
    await b.activate(KEYS.free);
    const timers = manualTimers();
    const execution = await a.startExecution(timers.options);
    server.leases.get(execution.id)!.expires_at = new Date(Date.now() - 1_000);
    const other = await b.startExecution({ endOnExit: false, ...manualTimers().options });
    await timers.fire();
    expect(execution.signal.reason).toMatchObject({ name: "ExecutionEndedError", code: EXECUTION_CODES.limit });
    expect((execution.signal.reason as ExecutionEndedError).cause).toBeInstanceOf(ExecutionLimitError);
    await settle();
    expect(server.leases.get(execution.id)?.ended).toBe("expired");
    await other.end();
  });

  it("a machine that lost its slot (NOT_ACTIVATED) loses the lease; end() sends nothing more", async () => {
    const m = manager("removed-a");
    await m.activate(KEYS.free);
    const timers = manualTimers();
    const execution = await m.startExecution(timers.options);
    const license = server.licenses.get(KEYS.free)!;
    license.machines = license.machines.filter((machine) => machine.machine_id !== "removed-a");
    await timers.fire();
    expect(execution.signal.reason).toMatchObject({ code: "NOT_ACTIVATED", status: 403 });
    expect(await execution.end()).toMatchObject({ confirmed: true, endReason: null });
    expect(countOf("/end")).toBe(0);
  });

  it("aborting the caller's signal ends the execution and aborts its signal with the caller's reason", async () => {
    const m = manager("abort-a");
    await m.activate(KEYS.free);
    const controller = new AbortController();
    const execution = await m.startExecution({ signal: controller.signal, ...manualTimers().options });
    controller.abort(new Error("user cancelled"));
    await settle();
    expect(execution.signal.reason).toMatchObject({ message: "user cancelled" });
    expect(server.leases.get(execution.id)?.ended).toBe("completed");
    // An aborted signal starts nothing.
    await expect(m.startExecution({ signal: controller.signal })).rejects.toThrow("user cancelled");
    expect(countOf("/api/license/executions")).toBe(1);
  });

  it("refuses a bad feature before sending anything, and needs an activation on this machine", async () => {
    const m = manager("input-a");
    await expect(m.startExecution()).rejects.toMatchObject({ name: "NotActivatedError" });
    await m.activate(KEYS.free);
    await expect(m.startExecution({ feature: "Not A Feature!" })).rejects.toMatchObject({
      name: "LicenseInputError",
      field: "feature",
    });
    expect(countOf("/api/license/executions")).toBe(0);
  });
});

describe("LicenseManager.runExecution", () => {
  it("starts, passes the execution and its signal, ends on completion, and reports no usage", async () => {
    const m = manager("run-a");
    await m.activate(KEYS.free);
    let seen: Execution | null = null;
    const result = await m.runExecution(
      async (execution) => {
        seen = execution;
        expect(execution.signal.aborted).toBe(false);
        expect(server.leases.get(execution.id)?.ended).toBeNull();
        return 42;
      },
      { feature: "code-review", ...manualTimers().options },
    );
    expect(result).toBe(42);
    const lease = server.leases.get(seen!.id)!;
    expect(lease).toMatchObject({ feature: "code-review", ended: "completed" });
    expect(countOf("/api/license/usage")).toBe(0);
    expect(openExecutionCount()).toBe(0);
  });

  it("ends the lease when fn throws, and rethrows fn's error", async () => {
    const m = manager("run-error");
    await m.activate(KEYS.free);
    let id = "";
    const failure = new Error("the agent crashed");
    await expect(
      m.runExecution((execution) => {
        id = execution.id;
        throw failure;
      }, manualTimers().options),
    ).rejects.toBe(failure);
    expect(server.leases.get(id)?.ended).toBe("completed");
    // The slot is free again: the next one starts.
    await expect(m.runExecution(() => "again", manualTimers().options)).resolves.toBe("again");
  });

  it("a second machine is refused with ExecutionLimitError and fn never runs", async () => {
    const a = manager("run-limit-a");
    const b = manager("run-limit-b");
    await a.activate(KEYS.free);
    await b.activate(KEYS.free);
    let ran = false;
    await a.runExecution(async () => {
      const refused = await b
        .runExecution(() => {
          ran = true;
        })
        .catch((error) => error);
      expect(refused).toBeInstanceOf(ExecutionLimitError);
      expect(refused.message).toBe(EXECUTION_MESSAGES.limit(1));
      expect(refused.running[0]).toMatchObject({ displayId: "M-0001" });
    }, manualTimers().options);
    expect(ran).toBe(false);
  });

  it("the server still ends the lease when it cannot be told: end() says so instead of throwing", async () => {
    const m = manager("run-unreachable");
    await m.activate(KEYS.free);
    let id = "";
    const result = await m.runExecution((execution) => {
      id = execution.id;
      const path = `/api/license/executions/${execution.id}/end`;
      server.script(path, { status: 503 }, { status: 503 }, { status: 503 });
      return "done";
    }, manualTimers().options);
    expect(result).toBe("done");
    expect(server.leases.get(id)?.ended).toBeNull();
    expect(countOf("/end")).toBe(3);
  });
});

describe("offline executions on a license file", () => {
  it("with the server out of reach, a license file allows its plan's executions, counted on this machine", async () => {
    const statePath = join(dir, "license.json");
    const online = manager("offline-a", new FileStateStore(statePath));
    await online.activate(KEYS.free);
    await online.checkout(30 * 86_400);
    const offline = manager("offline-a", new FileStateStore(statePath), await deadUrl());

    const first = await offline.startExecution({ feature: "batch-run", ...manualTimers().options });
    expect(first).toMatchObject({ mode: "offline", feature: "batch-run", limit: 1, running: 1 });
    const folder = localExecutionsFolder(dir, KEYS.free, "offline-a");
    expect(await readdir(folder)).toEqual([`${first.id}.json`]);

    // Free runs one at a time: a second is refused by the local count, naming this machine.
    const refused = await offline.startExecution(manualTimers().options).catch((error) => error);
    expect(refused).toBeInstanceOf(ExecutionLimitError);
    expect(refused).toMatchObject({ source: "local", limit: 1, message: EXECUTION_MESSAGES.limit(1) });
    expect(refused.running).toEqual([expect.objectContaining({ displayId: "M-0001", startedAt: first.startedAt })]);

    const end = await first.end();
    expect(end).toMatchObject({ confirmed: false, reportAsUsage: true });
    expect(await readdir(folder)).toEqual([]);
    const second = await offline.startExecution(manualTimers().options);
    expect(second.mode).toBe("offline");
    await second.end();
  });

  it("counts across processes: a file of a live process holds a slot, one of a dead process does not", async () => {
    const statePath = join(dir, "license.json");
    const online = manager("offline-b", new FileStateStore(statePath));
    await online.activate(KEYS.free);
    await online.checkout();
    const offline = manager("offline-b", new FileStateStore(statePath), await deadUrl());
    const folder = localExecutionsFolder(dir, KEYS.free, "offline-b");
    const holder = (pid: number, id: string) =>
      writeFile(
        join(folder, `${id}.json`),
        JSON.stringify({ pid, execution_id: id, feature: "", started_at: "2026-01-01T00:00:00.000Z" }),
      );
    const first = await offline.startExecution(manualTimers().options);
    await first.end();
    // Another process (our parent: alive) runs one.
    await holder(process.ppid, "other-process");
    await expect(offline.startExecution(manualTimers().options)).rejects.toBeInstanceOf(ExecutionLimitError);
    // That process died without ending it: its file is ignored (and removed).
    await rm(join(folder, "other-process.json"));
    await holder(2 ** 22 + 12_345, "crashed-process");
    const next = await offline.startExecution(manualTimers().options);
    expect(await readdir(folder)).toEqual([`${next.id}.json`]);
    await next.end();
  });

  it("without a license file, an unreachable server is the connectivity error (nothing runs offline on a token)", async () => {
    const store = new MemoryStateStore();
    await manager("offline-c", store).activate(KEYS.free);
    const offline = manager("offline-c", store, await deadUrl());
    await expect(offline.startExecution()).rejects.toBeInstanceOf(LicenseNetworkError);
  });

  it("the server's refusal is never papered over by the license file", async () => {
    const store = new MemoryStateStore();
    const a = manager("offline-d", store);
    await a.activate(KEYS.free);
    await a.checkout();
    const other = manager("offline-e");
    await other.activate(KEYS.free);
    const b = await other.startExecution(manualTimers().options);
    await expect(a.startExecution()).rejects.toMatchObject({ name: "ExecutionLimitError", source: "server" });
    await b.end();
  });

  it("an offline execution ends (LICENSE_FILE_EXPIRED) when the file it runs on expires", async () => {
    let clock = new Date();
    const store = new MemoryStateStore();
    const online = manager("offline-f", store);
    await online.activate(KEYS.free);
    await online.checkout(3_600);
    const offline = new LicenseManager({
      client: new LicenseClient({ baseUrl: await deadUrl(), retries: 0, trustedKeys: server.trustedKeys }),
      store,
      machineId: () => "offline-f",
      now: () => clock,
    });
    const timers = manualTimers();
    const execution = await offline.startExecution(timers.options);
    expect(execution.mode).toBe("offline");
    await timers.fire();
    expect(execution.signal.aborted).toBe(false);
    clock = new Date(clock.getTime() + 2 * 3_600_000);
    await timers.fire();
    expect(execution.signal.reason).toMatchObject({ code: "LICENSE_FILE_EXPIRED" });
    await execution.end();
  });
});
