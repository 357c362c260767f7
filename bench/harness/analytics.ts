// In-process: N validation attempts counted through the real recorder and flushed as rollups, then the
// 30-day analytics endpoint timed. Bundled by bench/api.mjs with esbuild (TypeScript sources).
import { buildApp } from "../../apps/api/src/app";
import { loadConfig } from "../../apps/api/src/config";

export { devSignInOverHttp } from "../../apps/api/test/helpers/dev-sign-in-http";

export async function analyticsLatency(events: number, databaseUrl: string | null) {
  const base = loadConfig({
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const app = await buildApp({
    ...base,
    siteDir: null,
    dataDir: null,
    database: databaseUrl ? base.database : { kind: "pglite", dataDir: null },
    rateLimits: {
      signupPerMinute: 1e6,
      perMinute: 1e6,
      authPerMinute: 1e6,
      licensePerMinute: 1e6,
      licenseKeyPerMinute: 1e6,
    },
  });
  await app.ready();
  const { devSignInInject } = await import("./sign-in-inject");
  const token = await devSignInInject(app, `bench-${events}-${Date.now()}@example.com`);
  const auth = { authorization: `Bearer ${token}` };
  const created = (
    await app.inject({ method: "POST", url: "/api/customer/licenses", headers: auth, payload: { tier: "free" } })
  ).json().data.license as { id: string; license_key: string };
  const key = created.license_key;
  const machines = ["desktop-a", "server-b", "mobile-c"];
  for (const machineId of machines)
    await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: key, machine_id: machineId },
    });

  // Spread the events over 30 days and 50 machines (3 bound, the rest refused), as a busy license would see.
  const day = 24 * 60 * 60 * 1000;
  const now = Date.now();
  const started = performance.now();
  for (let i = 0; i < events; i++) {
    const machine = i % 10 === 0 ? `desktop-extra-${i % 47}` : machines[i % 3]!;
    app.licensing.recorder.record(
      created.id,
      machine,
      i % 10 === 0 ? "TOO_MANY_MACHINES" : "VALID",
      new Date(now - (i % 30) * day),
    );
  }
  await app.licensing.recorder.flush();
  const seedMs = performance.now() - started;

  const samples: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t = performance.now();
    const response = await app.inject({ url: `/api/license/machines/${key}/analytics?days=30`, headers: auth });
    if (i >= 10) samples.push(performance.now() - t);
    if (response.statusCode !== 200) throw new Error(`analytics answered ${response.statusCode}`);
    if (i === 0 && response.json().data.summary.total_attempts !== events + machines.length) {
      throw new Error(
        `expected ${events + machines.length} attempts, got ${response.json().data.summary.total_attempts}`,
      );
    }
  }
  await app.close();
  samples.sort((a, b) => a - b);
  return {
    events,
    seedMs,
    medianMs: samples[Math.floor(samples.length / 2)]!,
    p95Ms: samples[Math.floor(samples.length * 0.95)]!,
  };
}
