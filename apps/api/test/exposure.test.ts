/**
 * Issue 22, item 1: one notion of exposure governs every development convenience (decision 0038). The list in
 * exposure.ts is enumerated here: each convenience has a proof that it is on for a loopback development server and
 * off for servers other machines can reach — a staging box with Google configured and NODE_ENV unset (the launch
 * review's), the same behind a proxy on a loopback socket, and one that opted in to the development sign-in
 * (which opens nothing else). A convenience added to the list without a proof does not compile; one decided
 * anywhere else than exposure.ts fails the source scan.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app";
import { type Config, loadConfig } from "../src/config";
import { devMail } from "../src/db/schema";
import { allows, CONVENIENCE_NAMES, type Convenience, conveniences } from "../src/exposure";
import { WebhookAdmin } from "../src/modules/admin/webhooks";
import { validSignup } from "./fixtures";
import { plantedSession } from "./helpers/planted-session";
import { createTestAppFromEnv, newSigningKeyPem } from "./helpers/test-app";

const ADMIN = "exposure.admin@example.com";
const SIGNING_KEY = newSigningKeyPem();
const SECRETS = { APP_SECRET: "exposure-secret-exposure-secret-exposure", LICENSE_SIGNING_KEY: SIGNING_KEY };
const GOOGLE = { GOOGLE_CLIENT_ID: "staging-client", GOOGLE_CLIENT_SECRET: "staging-secret" };
const STAGING = "https://staging.flotilla.example";

interface Server_ {
  name: string;
  env: Record<string, string>;
  app: FastifyInstance;
  config: Config;
  close(): Promise<void>;
}

/** Servers others can reach, none of them production (NODE_ENV unset). */
const EXPOSED: Array<{ name: string; env: Record<string, string> }> = [
  { name: "staging box on every interface", env: { HOST: "0.0.0.0", PUBLIC_ORIGIN: STAGING, ...GOOGLE, ...SECRETS } },
  { name: "loopback socket behind a proxy", env: { HOST: "127.0.0.1", PUBLIC_ORIGIN: STAGING, ...GOOGLE, ...SECRETS } },
  { name: "LAN demo with DEV_SIGN_IN=true", env: { HOST: "0.0.0.0", DEV_SIGN_IN: "true", ...SECRETS } },
];
/** `npm start`'s defaults: reachable from this machine only. */
const LOOPBACK = { name: "npm start on loopback", env: {} };

const MINIATURE_SITE: Record<string, string> = {
  "index.html": "<h1>home</h1>",
  "404/index.html": "<h1>not found page</h1>",
};
let siteDir: string;
let receiver: Server;
let receiverUrl: string;
const received: string[] = [];
let signups = 0;

async function boot(server: { name: string; env: Record<string, string> }): Promise<Server_> {
  const config = loadConfig({ LOG_LEVEL: "silent", ...server.env });
  const overrides = { siteDir, adminEmails: [ADMIN], backgroundJobs: false } satisfies Partial<Config>;
  const { app, close } = await createTestAppFromEnv(server.env, overrides);
  return { ...server, app, config: { ...config, ...overrides }, close };
}

const asAdmin = async (server: Server_, url: string, payload: Record<string, unknown>) =>
  server.app.inject({
    method: "POST",
    url,
    headers: { authorization: `Bearer ${await plantedSession(server.app, ADMIN)}` },
    payload,
  });

/** A signup whose mails the outbox then delivers (to dev_mail: none of these servers has SMTP_URL). */
async function signUpAndDeliver(server: Server_): Promise<string> {
  signups += 1;
  const email = `exposure-${signups}@example.com`;
  const response = await server.app.inject({ method: "POST", url: "/api/signup", payload: validSignup({ email }) });
  expect(response.statusCode, response.body).toBe(200);
  await server.app.outbox.runOnce();
  return email;
}

const tempDir = () => mkdtempSync(join(tmpdir(), "flotilla-exposure-"));

/** How to see each convenience from outside: on where it is allowed, off where it is not. */
const PROOFS: Record<Convenience, { on(server: Server_): Promise<void>; off(server: Server_): Promise<void> }> = {
  developmentSignIn: {
    async on(server) {
      expect(server.config.identityProvider.kind).toBe("development");
      const discovery = await server.app.inject({
        url: "/oidc/.well-known/openid-configuration",
        headers: { host: new URL(server.config.publicOrigin).host },
      });
      expect(discovery.statusCode).toBe(200);
    },
    async off(server) {
      expect(server.config.identityProvider.kind).toBe("oidc");
      for (const url of ["/oidc/.well-known/openid-configuration", "/oidc/auth", "/oidc/interaction/x"]) {
        const response = await server.app.inject(url);
        expect(response.statusCode, url).toBe(404);
        expect(response.body, url).toContain("not found page");
      }
    },
  },
  devMailPage: {
    async on(server) {
      const email = await signUpAndDeliver(server);
      const page = await server.app.inject("/dev/mail");
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(email);
    },
    async off(server) {
      const email = await signUpAndDeliver(server);
      // Decision 0038: without SMTP_URL the mail is kept in the database, as in production, and shown nowhere.
      const kept = await server.app.database.db.select().from(devMail).where(eq(devMail.recipient, email));
      expect(kept.length).toBeGreaterThan(0);
      for (const url of ["/dev/mail", `/dev/mail/${kept[0]!.id}`]) {
        const response = await server.app.inject(url);
        expect(response.statusCode, url).toBe(404);
        expect(response.body, url).not.toContain(email);
        expect(response.body, url).not.toContain("token=");
      }
    },
  },
  webhooksToThisNetwork: {
    async on(server) {
      const response = await asAdmin(server, "/api/admin/webhooks", { url: receiverUrl, events: ["signup.created"] });
      expect(response.statusCode, response.body).toBe(200);
    },
    async off(server) {
      for (const url of [
        "https://169.254.169.254/latest/meta-data",
        "https://10.0.0.5/hook",
        "https://192.168.1.10/hook",
        "http://localhost:4000/hook",
        receiverUrl,
      ]) {
        const response = await asAdmin(server, "/api/admin/webhooks", { url, events: ["signup.created"] });
        expect(response.statusCode, url).toBe(400);
        expect(response.json().code, url).toBe("INVALID_WEBHOOK_URL");
      }
      // An endpoint registered while the server was still loopback-only is refused at delivery too.
      const earlier = new WebhookAdmin(server.app.database.db, SECRETS.APP_SECRET, "development");
      await earlier.create(
        { url: receiverUrl, events: ["signup.created"], description: "" },
        { type: "system" },
        "::1",
      );
      const before = received.length;
      await signUpAndDeliver(server);
      expect(received.length).toBe(before);
    },
  },
  generatedSecrets: {
    async on(server) {
      const dataDir = tempDir();
      try {
        // The secrets go to the temporary folder; the database stays in memory (never the checkout's ./data).
        const app = await buildApp({
          ...server.config,
          database: { kind: "pglite", dataDir: null },
          appSecret: null,
          licenseSigningKey: null,
          dataDir,
        });
        await app.close();
        expect(readdirSync(dataDir).sort()).toEqual([
          "app-secret",
          "license-signing-key.pem",
          "release-public-key.txt",
          "release-signing-key.pem",
        ]);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    async off(server) {
      const dataDir = tempDir();
      try {
        const env = { ...server.env, APP_SECRET: "", LICENSE_SIGNING_KEY: "", DATA_DIR: dataDir };
        expect(() => loadConfig(env)).toThrow(/APP_SECRET: required when the server is reachable from other machines/);
        expect(() => loadConfig(env)).toThrow(/LICENSE_SIGNING_KEY: required when the server is reachable/);
        // A Config made some other way is held to the same rule, before anything is written.
        await expect(
          buildApp({
            ...server.config,
            database: { kind: "pglite", dataDir: null },
            appSecret: null,
            licenseSigningKey: null,
            dataDir,
          }),
        ).rejects.toThrow(/APP_SECRET and LICENSE_SIGNING_KEY are required/);
        expect(readdirSync(dataDir)).toEqual([]);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  },
  plainHttpPages: {
    async on(server) {
      for (const url of ["/api/health", "/"]) {
        expect((await server.app.inject(url)).headers["strict-transport-security"], url).toBeUndefined();
      }
      expect((await server.app.inject("/")).headers["content-security-policy"]).not.toContain(
        "upgrade-insecure-requests",
      );
    },
    async off(server) {
      // An http origin cannot carry either (browsers ignore HSTS over http, and the upgrade would break the page).
      const https = server.config.publicOrigin.startsWith("https:");
      for (const url of ["/api/health", "/"]) {
        const hsts = (await server.app.inject(url)).headers["strict-transport-security"];
        expect(hsts === undefined ? "absent" : hsts, url).toMatch(
          https ? /max-age=63072000; includeSubDomains/ : /absent/,
        );
      }
      expect(String((await server.app.inject("/")).headers["content-security-policy"])).toMatch(
        https ? /upgrade-insecure-requests/ : /^(?!.*upgrade-insecure-requests)/,
      );
    },
  },
};

beforeAll(async () => {
  siteDir = tempDir();
  for (const [path, body] of Object.entries(MINIATURE_SITE)) {
    mkdirSync(dirname(join(siteDir, path)), { recursive: true });
    writeFileSync(join(siteDir, path), body);
  }
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push(body);
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver.close();
  rmSync(siteDir, { recursive: true, force: true });
});

describe("the list of development conveniences", () => {
  it("has a proof for every convenience, and nothing else", () => {
    expect(Object.keys(PROOFS).sort()).toEqual([...CONVENIENCE_NAMES].sort());
  });

  it("is the only place they are decided: no NODE_ENV or loopback test anywhere else in the service", () => {
    const root = fileURLToPath(new URL("../src/", import.meta.url));
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith(".ts"));
    const used = new Set<string>();
    for (const file of files) {
      if (file === "exposure.ts") continue;
      const source = readFileSync(join(root, file), "utf8");
      for (const name of CONVENIENCE_NAMES) if (source.includes(`"${name}"`)) used.add(name);
      if (file === "config.ts") continue;
      expect(source, file).not.toMatch(
        /process\.env\.NODE_ENV|\bconfig\.env\b|\.env\s*[!=]==|env === "production"|isLoopbackHost|exposure ===/,
      );
    }
    // Every convenience on the list is actually asked about by the code that offers it.
    expect([...used].sort()).toEqual([...CONVENIENCE_NAMES].sort());
  });
});

describe("a server reachable from this machine only, outside production", () => {
  let server: Server_;
  beforeAll(async () => {
    server = await boot(LOOPBACK);
  });
  afterAll(async () => server?.close());

  it("is loopback and offers every convenience (each proof can tell)", async () => {
    expect(server.config.exposure).toBe("loopback");
    for (const name of CONVENIENCE_NAMES) {
      expect(allows(server.config, name), name).toBe(true);
      await PROOFS[name].on(server);
    }
  });
});

describe.each(EXPOSED)("an exposed non-production server: $name", (spec) => {
  let server: Server_;
  beforeAll(async () => {
    server = await boot(spec);
  });
  afterAll(async () => server?.close());

  it("is exposed, and offers no convenience but the development sign-in it explicitly asked for", async () => {
    expect(server.config.env).toBe("development");
    expect(server.config.exposure).toBe("exposed");
    const optedIn = spec.env.DEV_SIGN_IN === "true";
    expect(conveniences(server.config)).toEqual({
      ...Object.fromEntries(CONVENIENCE_NAMES.map((name) => [name, false])),
      developmentSignIn: optedIn,
    });
    for (const name of CONVENIENCE_NAMES) {
      if (name === "developmentSignIn" && optedIn) await PROOFS[name].on(server);
      else await PROOFS[name].off(server);
    }
  });
});

describe("production", () => {
  it("offers none, on loopback too", () => {
    for (const exposure of ["loopback", "exposed"] as const) {
      for (const devSignIn of [null, true, false]) {
        expect(Object.values(conveniences({ env: "production", exposure, devSignIn }))).not.toContain(true);
      }
    }
  });
});
