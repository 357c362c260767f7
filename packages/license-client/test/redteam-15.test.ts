/**
 * Red team, issue 15: the SDK's session from the side of a user who wants the app to keep running — each test is an
 * attack that worked at dacdd59, kept as a regression test once fixed.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LicenseClient } from "../src/client";
import { LicenseStateError } from "../src/errors";
import { LicenseManager } from "../src/license-manager";
import { LicenseSession } from "../src/session";
import { type LicenseState, MemoryStateStore } from "../src/state";
import { type FakeServer, GRACE_SECONDS, KEYS, startFakeServer } from "./fake-server";

/** A state file the user makes unreadable (garbage, chmod 000) once the app has started. */
class BreakableStore extends MemoryStateStore {
  broken = false;
  override async read(): Promise<LicenseState | null> {
    if (this.broken) throw new LicenseStateError("Cannot read license.json: EACCES", "license.json");
    return super.read();
  }
}

let server: FakeServer;
let clock: Date;
beforeEach(async () => {
  server = await startFakeServer();
  clock = new Date();
});
afterEach(async () => {
  await server.close();
});

describe("LicenseSession fails closed", () => {
  it("a state file made unreadable after start does not freeze the last valid verdict (past the token's expiry)", async () => {
    const store = new BreakableStore();
    const manager = new LicenseManager({
      client: new LicenseClient({ baseUrl: server.url, sleep: async () => {}, trustedKeys: server.trustedKeys }),
      store,
      machineId: () => "desktop-redteam",
      trustedKeys: server.trustedKeys,
      now: () => clock,
    });
    await manager.activate(KEYS.free);
    const timers: { ms: number; run: () => void }[] = [];
    const session = new LicenseSession(manager, {
      setTimeout: (run, ms) => timers.push({ ms, run }),
      clearTimeout: () => {},
    });
    const errors: unknown[] = [];
    session.onError((error) => errors.push(error));
    expect(await session.start()).toMatchObject({ mode: "online", valid: true });
    expect(session.maxConcurrentExecutions).not.toBe(0);

    // The user breaks the state file and keeps the app open for longer than any token lasts (or is suspended meanwhile).
    store.broken = true;
    server.licenses.get(KEYS.free)!.status = "suspended";
    clock = new Date(clock.getTime() + (GRACE_SECONDS + 86_400) * 1000);
    await session.beat();
    expect(errors).toHaveLength(1);
    expect(session.status).toMatchObject({ valid: false });
    expect(session.maxConcurrentExecutions).toBe(0);
    expect(session.hasFeature("sharedMemory")).toBe(false);
    // The loop keeps trying (backing off), and recovers when the file is readable again.
    expect(session.nextHeartbeatInMs).not.toBeNull();
    session.stop();
  });
});
