import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LICENSE_CODE_MESSAGES } from "@flotilla/contracts/tiers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT, main } from "../src/cli";
import { deadUrl, type FakeServer, GRACE_SECONDS, KEYS, startFakeServer } from "./fake-server";

let server: FakeServer;
let dir: string;
let statePath: string;

beforeEach(async () => {
  server = await startFakeServer();
  dir = await mkdtemp(join(tmpdir(), "flotilla-cli-"));
  statePath = join(dir, "license.json");
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(
  argv: string[],
  options: { env?: Record<string, string>; now?: Date; kind?: "production" | "development" } = {},
): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: { FLOTILLA_LICENSE_STATE: statePath, FLOTILLA_MACHINE_ID: "desktop-cli-test", ...options.env },
    client: { sleep: async () => {} },
    // Plays a development build pinned to the fake server's key (what scripts/build.mjs does for real).
    build: { kind: options.kind ?? "development", trustedKeys: server.trustedKeys },
    ...(options.now ? { now: () => options.now! } : {}),
  });
  return { code, stdout, stderr };
}

const json = (r: Run) => JSON.parse(r.stdout);

describe("flotilla-license CLI", () => {
  it("activate → status → usage → verify → deactivate", async () => {
    const activate = await run(["activate", KEYS.free, "--server", server.url, "--name", "CI box"]);
    expect(activate).toMatchObject({ code: EXIT.ok, stderr: "" });
    expect(activate.stdout).toContain("Activated on this machine");
    expect(activate.stdout).toContain("FLOT-AAAAA-…-EEEEE");
    expect(activate.stdout).toContain("display id M-0001, primary");
    expect(server.requests[0]?.body).toMatchObject({ machine_id: "desktop-cli-test", machine_name: "CI box" });
    // POSIX permissions only; Windows has no mode bits.
    if (process.platform !== "win32") expect((await stat(statePath)).mode & 0o777).toBe(0o600);

    // No --server: the activation's server is remembered.
    const status = await run(["status"]);
    expect(status.code).toBe(EXIT.ok);
    expect(status.stdout).toContain("License valid, checked online");
    expect(status.stdout).toMatch(/Tier\s+free/);
    expect(status.stdout).toMatch(/Status\s+active/);
    expect(status.stdout).toMatch(/Offline\s+token valid until .* \(in (6d 23h|7d 0h)\)/);

    const usage = await run(["usage", "7", "--feature", "code-review"]);
    expect(usage).toMatchObject({ code: EXIT.ok });
    expect(usage.stdout).toContain("Recorded 7 executions for code-review. This month: 7 executions.");

    const verify = await run(["verify", "--json"]);
    expect(verify.code).toBe(EXIT.ok);
    expect(json(verify)).toMatchObject({ command: "verify", ok: true, mode: "offline", valid: true, code: "VALID" });

    const deactivate = await run(["deactivate"]);
    expect(deactivate.code).toBe(EXIT.ok);
    expect(deactivate.stdout).toContain("Forgot the activation");
    await expect(stat(statePath)).rejects.toMatchObject({ code: "ENOENT" });

    const after = await run(["verify"]);
    expect(after.code).toBe(EXIT.invalid);
    expect(after.stderr).toContain("flotilla-license activate");
  });

  it("machine-readable activate and status", async () => {
    const activate = await run(["activate", KEYS.free, "--server", server.url, "--json", "--machine-id", "server-x"]);
    expect(activate.code).toBe(EXIT.ok);
    expect(json(activate)).toMatchObject({
      command: "activate",
      ok: true,
      activated: true,
      code: "VALID",
      license_key: KEYS.free,
      machine_id: "server-x",
      license: { tier: "free", max_machines: 3 },
      machine: { display_id: "M-0001", is_primary: true },
      token_expires_at: expect.any(String),
      state_path: statePath,
    });
    const status = await run(["status", "--json", "--machine-id", "server-x"]);
    expect(json(status)).toMatchObject({ ok: true, mode: "online", valid: true, machine_id: "server-x" });
    // The machine id is computed again at every check: as another machine, the activation is not valid.
    const elsewhere = await run(["status", "--json"]);
    expect(elsewhere.code).toBe(EXIT.invalid);
    expect(json(elsewhere)).toMatchObject({ ok: false, reason: "wrong_machine", machine_id: "desktop-cli-test" });
  });

  it.each([
    ["NOT_FOUND", KEYS.unknown],
    ["SUSPENDED", KEYS.suspended],
    ["EXPIRED", KEYS.expired],
  ] as const)("exits 1 and prints %s with its message for a refused key", async (code, key) => {
    const result = await run(["activate", key, "--server", server.url]);
    expect(result.code).toBe(EXIT.invalid);
    expect(result.stderr).toContain(`${code}: ${LICENSE_CODE_MESSAGES[code]}`);
    await expect(stat(statePath)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("exits 1 with TOO_MANY_MACHINES when the slots are full", async () => {
    expect((await run(["activate", KEYS.single, "--server", server.url, "--machine-id", "one"])).code).toBe(EXIT.ok);
    const second = await run(["activate", KEYS.single, "--server", server.url, "--machine-id", "two", "--json"]);
    expect(second.code).toBe(EXIT.invalid);
    expect(json(second)).toMatchObject({ ok: false, activated: false, code: "TOO_MANY_MACHINES" });
  });

  it("status falls back offline when the server is down, and fails after the grace period", async () => {
    expect((await run(["activate", KEYS.free, "--server", server.url])).code).toBe(EXIT.ok);
    const down = await deadUrl();
    const offline = await run(["status", "--server", down]);
    expect(offline.code).toBe(EXIT.ok);
    expect(offline.stdout).toContain("License valid, checked offline (server unreachable");

    const later = new Date(Date.now() + (GRACE_SECONDS + 3600) * 1000);
    const expired = await run(["status", "--server", down, "--json"], { now: later });
    expect(expired.code).toBe(EXIT.invalid);
    expect(json(expired)).toMatchObject({ ok: false, mode: "offline", valid: false, reason: "expired" });

    // validate is online only: an unreachable server is exit 3.
    const validate = await run(["validate", "--server", down]);
    expect(validate.code).toBe(EXIT.unavailable);
    expect(validate.stderr).toContain("Cannot reach the licensing server");
  });

  it("exits 1 when the server refuses a usage report, 3 when it fails", async () => {
    expect((await run(["activate", KEYS.free, "--server", server.url])).code).toBe(EXIT.ok);
    server.licenses.get(KEYS.free)!.status = "suspended";
    const refused = await run(["usage", "1"]);
    expect(refused.code).toBe(EXIT.invalid);
    expect(refused.stderr).toContain(`SUSPENDED: ${LICENSE_CODE_MESSAGES.SUSPENDED}`);

    server.script("/api/license/usage", ...Array(3).fill({ status: 503 }));
    const failed = await run(["usage", "1", "--json"]);
    expect(failed.code).toBe(EXIT.unavailable);
    expect(json(failed)).toMatchObject({ ok: false, error: { type: "server_error", status: 503 } });
  });

  it("exits 2 for usage errors", async () => {
    const cases: string[][] = [
      [],
      ["frobnicate"],
      ["activate"],
      ["activate", "a", "b"],
      ["usage", "zero"],
      ["usage", "0"],
      ["status", "--feature", "x"],
      ["status", "--bogus"],
      ["activate", "short", "--server", server.url],
      ["activate", KEYS.free, "--server", "not a url"],
      ["usage", "1", "--feature", "Not Valid!"],
    ];
    for (const argv of cases) {
      const result = await run(argv);
      expect({ argv, code: result.code }).toEqual({ argv, code: EXIT.usage });
      expect(result.stderr).not.toBe("");
    }
    expect(server.requests).toHaveLength(0);
  });

  it("exits 2 for a corrupt state file, which deactivate can still remove", async () => {
    await writeFile(statePath, "{ nope");
    const status = await run(["status"]);
    expect(status.code).toBe(EXIT.usage);
    expect(status.stderr).toContain("not valid JSON");
    expect((await run(["deactivate"])).code).toBe(EXIT.ok);
  });

  it("uses --state over FLOTILLA_LICENSE_STATE and FLOTILLA_SERVER over the default", async () => {
    const other = join(dir, "other.json");
    const result = await run(["activate", KEYS.free, "--state", other], { env: { FLOTILLA_SERVER: server.url } });
    expect(result.code).toBe(EXIT.ok);
    expect((await stat(other)).isFile()).toBe(true);
    await expect(stat(statePath)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("prints help", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toContain("Usage: flotilla-license <command>");
    expect(help.stdout).toContain("Exit codes");
    expect((await run(["help"])).code).toBe(EXIT.ok);
  });
});

describe("flotilla-license CLI from the attacker's side", () => {
  it("a production build refuses --machine-id and FLOTILLA_MACHINE_ID: a copied state file cannot pose as its machine", async () => {
    const attempts: Array<{ argv: string[]; env: Record<string, string> }> = [
      // The flag alone (the environment's id is blanked out)…
      { argv: ["status", "--machine-id", "desktop-cli-test"], env: { FLOTILLA_MACHINE_ID: "" } },
      // …and the environment alone.
      { argv: ["verify"], env: { FLOTILLA_MACHINE_ID: "desktop-cli-test" } },
    ];
    for (const options of attempts) {
      const result = await run(options.argv, { env: options.env, kind: "production" });
      expect(result.code).toBe(EXIT.usage);
      expect(result.stderr).toContain("not available in a production build");
    }
  });

  it("verify with a hand-written state file and a self-made key: NOT valid, with the reason", async () => {
    const { exportJWK, generateKeyPair, SignJWT } = await import("jose");
    const { keyIdOf } = await import("../src/trusted-keys");
    const { TIERS } = await import("@flotilla/contracts/tiers");
    const attacker = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const x = (await exportJWK(attacker.publicKey)).x!;
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({
      lic: KEYS.free,
      mid: "desktop-cli-test",
      tier: "ultra",
      status: "active",
      features: TIERS.ultra.features,
      max_machines: 20,
    })
      .setProtectedHeader({ alg: "EdDSA", kid: keyIdOf(x) })
      .setIssuer("flotilla-licensing")
      .setAudience("flotilla-desktop")
      .setSubject("forged")
      .setIssuedAt(now)
      .setExpirationTime(now + 10 * 365 * 86_400)
      .sign(attacker.privateKey);
    await writeFile(
      statePath,
      JSON.stringify({
        version: 1,
        server_url: await deadUrl(),
        license_key: KEYS.free,
        machine_id: "desktop-cli-test",
        machine_name: null,
        token,
        public_key: { kid: keyIdOf(x), alg: "EdDSA", jwk: { kty: "OKP", crv: "Ed25519", x } },
        license: {
          tier: "ultra",
          status: "active",
          expires_at: null,
          features: TIERS.ultra.features,
          max_machines: 20,
        },
        machine: null,
        activated_at: new Date().toISOString(),
        last_validated_at: new Date().toISOString(),
        last_code: "VALID",
      }),
    );
    const verify = await run(["verify", "--json"]);
    expect(verify.code).toBe(EXIT.invalid);
    expect(json(verify)).toMatchObject({ ok: false, valid: false, reason: "untrusted_key" });
  });
});

describe("flotilla-license CLI copy", () => {
  it("names the machine it activated by the name given, with its id beside it", async () => {
    const activate = await run(["activate", KEYS.free, "--server", server.url, "--name", "Ada MacBook Pro"]);
    expect(activate.code).toBe(EXIT.ok);
    expect(activate.stdout).toMatch(/Machine\s+Ada MacBook Pro \(desktop-cli-test, display id M-0001, primary\)/);
    const asJson = await run(["activate", KEYS.free, "--server", server.url, "--name", "Ada MacBook Pro", "--json"]);
    expect(json(asJson)).toMatchObject({ machine_id: "desktop-cli-test", machine_name: "Ada MacBook Pro" });
  });

  it("says how soon in seconds under a minute, never 'in 0m'", async () => {
    const activated = await run(["activate", KEYS.free, "--server", server.url, "--json"]);
    const expiresAt = Date.parse(json(activated).token_expires_at);
    const at = (msBeforeExpiry: number) => new Date(expiresAt - msBeforeExpiry);
    // In time order: the SDK treats a clock that went back as a reason to go online.
    const later = await run(["verify"], { now: at(5 * 60_000 + 30_000) });
    expect(later.stdout).toMatch(/token valid until .* \(in 5m 30s\)/);
    const soon = await run(["verify"], { now: at(45_000) });
    expect(soon.stdout).toMatch(/token valid until .* \(in 45s\)/);
    expect(soon.stdout).not.toContain("0m");
    const now = await run(["verify"], { now: at(100) });
    expect(now.stdout).toMatch(/token valid until .* \(in under a second\)/);
  });
});
