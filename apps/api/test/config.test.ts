/**
 * The configuration from the operator's and the attacker's side: a deployment that forgets a setting must not
 * start in a state where strangers can sign in as anyone, pick their own address, or trust a throw-away key.
 */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config";

const PRODUCTION = {
  NODE_ENV: "production",
  PUBLIC_ORIGIN: "https://flotilla.example",
  APP_SECRET: "s".repeat(40),
  LICENSE_SIGNING_KEY: "k".repeat(64),
  GOOGLE_CLIENT_ID: "client-id",
  GOOGLE_CLIENT_SECRET: "client-secret",
};

describe("the development sign-in runs only where strangers cannot reach it", () => {
  it("npm start's defaults: loopback only, development sign-in on (and says why)", () => {
    const config = loadConfig({});
    expect(config.host).toBe("localhost");
    expect(config.publicOrigin).toBe("http://localhost:3000");
    expect(config.identityProvider).toEqual({ kind: "development", reason: "loopback" });
  });

  it("a server listening on every interface without Google settings refuses to start (was: anyone signs in as anyone)", () => {
    for (const env of [
      { HOST: "0.0.0.0" },
      { HOST: "::" },
      { HOST: "192.168.1.20" },
      // Loopback socket behind a public origin: a proxy puts strangers in front of it.
      { HOST: "127.0.0.1", PUBLIC_ORIGIN: "https://flotilla.example" },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(
        /GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET: required when the server is reachable/,
      );
    }
  });

  it("DEV_SIGN_IN=true opts in explicitly outside production; DEV_SIGN_IN=false turns it off even on loopback", () => {
    // Exposed, the opt-in opens the sign-in only: the secrets are still required (exposure.test.ts).
    const secrets = { APP_SECRET: PRODUCTION.APP_SECRET, LICENSE_SIGNING_KEY: PRODUCTION.LICENSE_SIGNING_KEY };
    expect(loadConfig({ HOST: "0.0.0.0", DEV_SIGN_IN: "true", ...secrets }).identityProvider).toEqual({
      kind: "development",
      reason: "opt-in",
    });
    expect(() => loadConfig({ DEV_SIGN_IN: "false" })).toThrow(/required when DEV_SIGN_IN=false/);
  });

  it("production refuses to start without PUBLIC_ORIGIN, APP_SECRET, LICENSE_SIGNING_KEY and Google, naming each", () => {
    expect(loadConfig(PRODUCTION).identityProvider).toMatchObject({ kind: "oidc", clientId: "client-id" });
    for (const missing of ["PUBLIC_ORIGIN", "APP_SECRET", "LICENSE_SIGNING_KEY", "GOOGLE_CLIENT_ID"] as const) {
      const env: Record<string, string> = { ...PRODUCTION };
      delete env[missing];
      if (missing === "GOOGLE_CLIENT_ID") delete env.GOOGLE_CLIENT_SECRET;
      expect(() => loadConfig(env), missing).toThrow(new RegExp(`${missing}[^\\n]*: required in production`));
    }
    expect(() => loadConfig({ ...PRODUCTION, DEV_SIGN_IN: "true" })).toThrow(
      /DEV_SIGN_IN: cannot be enabled in production/,
    );
    expect(() => loadConfig({ ...PRODUCTION, PUBLIC_ORIGIN: "http://flotilla.example" })).toThrow(/must be https/);
    expect(() => loadConfig({ GOOGLE_CLIENT_ID: "id-only" })).toThrow(/must be set together/);
  });
});

describe("TRUST_PROXY names the proxies, never 'everyone'", () => {
  it("refuses true, which would let any client pick its address with X-Forwarded-For", () => {
    expect(() => loadConfig({ TRUST_PROXY: "true" })).toThrow(
      /TRUST_PROXY: true would let any client choose its address/,
    );
    expect(() => loadConfig({ TRUST_PROXY: "1.2.3" })).toThrow(/TRUST_PROXY: must be false, a number of proxy hops/);
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.0/33" })).toThrow(/TRUST_PROXY/);
  });

  it("accepts a hop count, or addresses and CIDR ranges", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback" }).trustProxy).toEqual([
      "127.0.0.1",
      "10.0.0.0/8",
      "::1",
      "fd00::/8",
      "loopback",
    ]);
  });
});
