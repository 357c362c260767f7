/** Apps for the stalling-peer tests (bounded-waits*.test.ts): each app's peers close before it, after each test. */
import type { FastifyInstance } from "fastify";
import { afterEach } from "vitest";
import type { Config } from "../../src/config";
import { within } from "./stalling-peers";
import { createTestApp } from "./test-app";

/**
 * Registers the clean-up in the calling test file. `appWith(overrides, peers)` builds an app; `defer(close)` adds any
 * other clean-up; all run after each test, last first.
 */
export function appsWithPeers() {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  /** An app whose peers are closed before it (cleanups run in reverse): nothing then waits on them at shutdown. */
  async function appWith(overrides: Partial<Config>, peers: Array<{ close(): Promise<void> }> = []) {
    const { app, close } = await createTestApp(overrides);
    cleanups.push(close);
    for (const peer of peers) cleanups.push(() => peer.close());
    return app;
  }
  return { appWith, defer: (cleanup: () => Promise<void>) => cleanups.push(cleanup) };
}

/** A validation that may not answer: "no answer" after 5 s. */
export const validateWithin = (app: FastifyInstance, key: string, machine = "desktop-stall") =>
  within(
    5_000,
    app.inject({ method: "POST", url: "/api/license/validate", payload: { license_key: key, machine_id: machine } }),
  );
