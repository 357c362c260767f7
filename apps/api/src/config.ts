import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { DatabaseOptions } from "./db/client";

/** Where `npm run build` puts the prerendered site, relative to this package. */
const DEFAULT_SITE_DIR = fileURLToPath(new URL("../../web/build/client", import.meta.url));

const booleanFlag = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  PUBLIC_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
  SITE_DIR: z.string().min(1).default(DEFAULT_SITE_DIR),
  SERVE_SITE: booleanFlag.default(true),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATA_DIR: z.string().min(1).default("./data"),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  APP_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  TRUST_PROXY: booleanFlag.default(false),
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  RATE_LIMIT_SIGNUP_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_ISSUER_URL: z.url({ protocol: /^https?$/ }).default("https://accounts.google.com"),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  LICENSE_SIGNING_KEY: z.string().min(40).optional(),
  RATE_LIMIT_LICENSE_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  RATE_LIMIT_LICENSE_KEY_PER_MINUTE: z.coerce.number().int().min(1).default(120),
});

/**
 * Who signs people in: Google (any OpenID Connect issuer, really) when credentials are configured,
 * otherwise — never in production — the development issuer mounted in this process at /oidc.
 */
export type IdentityProviderConfig =
  | { kind: "oidc"; issuer: string; clientId: string; clientSecret: string }
  | { kind: "development" };

export interface Config {
  env: "development" | "production" | "test";
  port: number;
  host: string;
  logLevel: string;
  publicOrigin: string;
  /** The built site to serve, or null to serve the API only (tests). */
  siteDir: string | null;
  /** Data folder for PGlite and generated secrets; null keeps everything in memory (tests). */
  dataDir: string | null;
  database: DatabaseOptions;
  redisUrl: string | null;
  appSecret: string | null;
  trustProxy: boolean;
  bodyLimit: number;
  rateLimits: {
    signupPerMinute: number;
    perMinute: number;
    authPerMinute: number;
    /** Desktop licensing calls per client address, and per license key. */
    licensePerMinute: number;
    licenseKeyPerMinute: number;
  };
  licenseSigningKey: string | null;
  identityProvider: IdentityProviderConfig;
  sessionTtlDays: number;
}

/** Reads and validates the environment once at start; a bad value stops the service with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set" (e.g. DATABASE_URL= to force the embedded database).
  const parsed = EnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== "")));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === "production" && !e.APP_SECRET) {
    throw new Error(
      "Invalid configuration:\n  APP_SECRET: required in production (32+ random characters, shared by every instance)",
    );
  }
  if (Boolean(e.GOOGLE_CLIENT_ID) !== Boolean(e.GOOGLE_CLIENT_SECRET)) {
    throw new Error("Invalid configuration:\n  GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET must be set together");
  }
  if (e.NODE_ENV === "production" && !e.GOOGLE_CLIENT_ID) {
    throw new Error(
      "Invalid configuration:\n  GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET: required in production (the development sign-in is never served there)",
    );
  }
  const dataDir = resolve(e.DATA_DIR);
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    publicOrigin: (e.PUBLIC_ORIGIN ?? `http://localhost:${e.PORT}`).replace(/\/$/, ""),
    siteDir: e.SERVE_SITE ? e.SITE_DIR : null,
    dataDir,
    database: e.DATABASE_URL
      ? { kind: "postgres", url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE }
      : { kind: "pglite", dataDir: resolve(dataDir, "pglite") },
    redisUrl: e.REDIS_URL ?? null,
    appSecret: e.APP_SECRET ?? null,
    trustProxy: e.TRUST_PROXY,
    bodyLimit: e.BODY_LIMIT,
    rateLimits: {
      signupPerMinute: e.RATE_LIMIT_SIGNUP_PER_MINUTE,
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      authPerMinute: e.RATE_LIMIT_AUTH_PER_MINUTE,
      licensePerMinute: e.RATE_LIMIT_LICENSE_PER_MINUTE,
      licenseKeyPerMinute: e.RATE_LIMIT_LICENSE_KEY_PER_MINUTE,
    },
    licenseSigningKey: e.LICENSE_SIGNING_KEY ?? null,
    identityProvider:
      e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET
        ? {
            kind: "oidc",
            issuer: e.OIDC_ISSUER_URL.replace(/\/$/, ""),
            clientId: e.GOOGLE_CLIENT_ID,
            clientSecret: e.GOOGLE_CLIENT_SECRET,
          }
        : { kind: "development" },
    sessionTtlDays: e.SESSION_TTL_DAYS,
  };
}
