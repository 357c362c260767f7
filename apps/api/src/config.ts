import { isIP } from "node:net";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BRAND } from "@flotilla/contracts/brand";
import { parseReleasePublicKeys } from "@flotilla/contracts/release-signing";
import { z } from "zod";
import { DEFAULT_POSTGRES_BOUNDS } from "./db/bounded-postgres";
import type { DatabaseOptions } from "./db/client";
import { allows, type Exposure, exposureOf, isLoopbackHost } from "./exposure";

/** Where `npm run build` puts the prerendered site, relative to this package. */
const DEFAULT_SITE_DIR = fileURLToPath(new URL("../../web/build/client", import.meta.url));

const booleanFlag = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");

/** Named address ranges proxy-addr (Fastify's trustProxy) understands. */
const NAMED_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);

function isAddressOrRange(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, bits, extra] = entry.split("/");
  if (!address || extra !== undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Which hops may say who the client is (X-Forwarded-For): none, the nearest N proxies, or proxies at these
 * addresses. "true" would believe any client that writes the header itself, so it is refused.
 */
const TrustProxySchema = z
  .string()
  .trim()
  .transform((value, context): TrustProxy => {
    if (value === "false" || value === "0") return false;
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops <= 16) return hops;
    } else if (value !== "true" && value !== "1") {
      const entries = value
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean);
      if (entries.length > 0 && entries.every(isAddressOrRange)) return entries;
    }
    context.addIssue({
      code: "custom",
      message:
        value === "true"
          ? "true would let any client choose its address with X-Forwarded-For; give the number of proxies in front of the service (e.g. 1) or their addresses (e.g. 127.0.0.1,10.0.0.0/8)"
          : "must be false, a number of proxy hops (1–16), or a comma-separated list of proxy addresses/CIDR ranges",
    });
    return z.NEVER;
  });
export type TrustProxy = false | number | string[];

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Loopback by default: a server nobody else can reach is the one place development conveniences are safe.
  HOST: z.string().min(1).default("localhost"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  PUBLIC_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
  SITE_DIR: z.string().min(1).default(DEFAULT_SITE_DIR),
  SERVE_SITE: booleanFlag.default(true),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  // The owner role's URL: migrations run as it, the service as DATABASE_URL's role (decision 0039).
  DATABASE_MIGRATION_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(DEFAULT_POSTGRES_BOUNDS.connectTimeoutMs),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(DEFAULT_POSTGRES_BOUNDS.statementTimeoutMs),
  DATA_DIR: z.string().min(1).default("./data"),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(5).max(5_000).default(50),
  REDIS_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{0,64}$/, "letters, digits, '.', '_', ':' and '-' only, at most 64")
    .default(""),
  APP_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  TRUST_PROXY: TrustProxySchema.default(false),
  BODY_LIMIT: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  RATE_LIMIT_SIGNUP_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  RATE_LIMIT_ACCOUNT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  DEV_SIGN_IN: booleanFlag.optional(),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_ISSUER_URL: z.url({ protocol: /^https?$/ }).default("https://accounts.google.com"),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  SESSION_MAX_DAYS: z.coerce.number().int().min(1).max(365).default(90),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(300_000).default(25_000),
  COUNTER_FLUSH_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(1_000),
  BACKGROUND_JOBS: booleanFlag.default(true),
  INSTANCE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, '.', '_' and '-' only")
    .optional(),
  LICENSE_SIGNING_KEY: z.string().min(40).optional(),
  RATE_LIMIT_LICENSE_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  RATE_LIMIT_LICENSE_KEY_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  ADMIN_EMAILS: z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((email) => email.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(z.array(z.email("ADMIN_EMAILS: a comma-separated list of email addresses")))
    .default([]),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).optional(),
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(20_000),
  OUTBOX_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // Distribution (decisions 0059-0061).
  ARTIFACT_STORAGE: z.enum(["folder", "s3"]).default("folder"),
  S3_BUCKET: z.string().min(3).max(63).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_FORCE_PATH_STYLE: booleanFlag.default(false),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_./-]{0,128}$/, "letters, digits, '.', '_', '/' and '-' only")
    .default(""),
  RELEASE_PUBLIC_KEYS: z.string().min(40).optional(),
  RELEASE_EXPIRED_ACCESS: z.enum(["refuse", "maintain"]).default("refuse"),
});

/** Every environment variable the service reads (README's configuration table lists each one). */
export const CONFIG_VARIABLES = Object.keys(EnvSchema.shape);

/**
 * Who signs people in: Google (any OpenID Connect issuer, really) when credentials are configured,
 * otherwise — never in production — the development issuer mounted in this process at /oidc.
 */
export type IdentityProviderConfig =
  | { kind: "oidc"; issuer: string; clientId: string; clientSecret: string }
  | {
      kind: "development";
      /** Why it may run here: the server is reachable from this machine only, or DEV_SIGN_IN=true says so. */
      reason: "loopback" | "opt-in";
    };

export interface Config {
  env: "development" | "production" | "test";
  port: number;
  host: string;
  logLevel: string;
  publicOrigin: string;
  /** Who can reach this server (HOST and PUBLIC_ORIGIN): decides every development convenience (exposure.ts). */
  exposure: Exposure;
  /** DEV_SIGN_IN as set: true opts in to the development sign-in when exposed, false turns it off; null unset. */
  devSignIn: boolean | null;
  /** The built site to serve, or null to serve the API only (tests). */
  siteDir: string | null;
  /** Data folder for PGlite and generated secrets; null keeps everything in memory (tests). */
  dataDir: string | null;
  database: DatabaseOptions;
  redisUrl: string | null;
  /** How long a Redis command may take before the caller falls back; how long Redis is skipped after failures. */
  redisCommandTimeoutMs: number;
  redisBreakerCoolDownMs: number;
  /** Put before every key the service writes in Redis (deployments or test runs sharing one Redis). */
  redisKeyPrefix: string;
  appSecret: string | null;
  trustProxy: TrustProxy;
  bodyLimit: number;
  rateLimits: {
    signupPerMinute: number;
    perMinute: number;
    /** Failed sign-ins (bad state, code or bearer token) per client address per minute. */
    authFailuresPerMinute: number;
    /** Session operations (refresh, logout, sign out everywhere) per signed-in customer per minute. */
    accountPerMinute: number;
    /** Desktop licensing calls per client address, and per license key. */
    licensePerMinute: number;
    licenseKeyPerMinute: number;
  };
  licenseSigningKey: string | null;
  identityProvider: IdentityProviderConfig;
  /** Sliding lifetime: a session unused this long expires. */
  sessionTtlDays: number;
  /** Absolute lifetime: no session outlives this, however much it is used. */
  sessionMaxDays: number;
  /** How long SIGTERM waits for in-flight requests before it flushes and exits anyway. */
  shutdownTimeoutMs: number;
  /** How often buffered validation counters and last-seen times are written (the most a crash can lose). */
  counterFlushIntervalMs: number;
  /** Whether this instance schedules background jobs (retention); they run on one instance at a time anyway. */
  backgroundJobs: boolean;
  /** This instance's name in logs and metrics. */
  instanceId: string;
  /** Addresses that are admins by configuration (lower case); more can be granted with the admin CLI. */
  adminEmails: string[];
  /** SMTP server for mail (smtp[s]://user:pass@host:port); null keeps mail in the database (dev_mail). */
  smtpUrl: string | null;
  mailFrom: string;
  /** The longest one mail may take to send, every SMTP wait included. */
  smtpTimeoutMs: number;
  /** How often this instance looks for outbox rows to deliver. */
  outboxIntervalMs: number;
  webhookTimeoutMs: number;
  releases: ReleaseConfig;
}

export interface ReleaseConfig {
  storage:
    | { kind: "folder" }
    | {
        kind: "s3";
        bucket: string;
        region: string;
        endpoint: string | null;
        forcePathStyle: boolean;
        credentials: { accessKeyId: string; secretAccessKey: string } | null;
        prefix: string;
      };
  /** RELEASE_PUBLIC_KEYS as given; null generates a development key pair into DATA_DIR (decision 0060). */
  publicKeys: string | null;
  /** Whether a license past its end keeps the releases published before it (Keygen's MAINTAIN_ACCESS). */
  expiredAccess: "refuse" | "maintain";
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
  const problems: string[] = [];
  if (Boolean(e.GOOGLE_CLIENT_ID) !== Boolean(e.GOOGLE_CLIENT_SECRET)) {
    problems.push("GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET must be set together");
  }
  if (e.DATABASE_MIGRATION_URL && !e.DATABASE_URL) {
    problems.push("DATABASE_MIGRATION_URL: needs DATABASE_URL (the role the service runs as)");
  }
  if (e.NODE_ENV === "production") {
    const required: Array<[string, unknown, string]> = [
      ["PUBLIC_ORIGIN", e.PUBLIC_ORIGIN, "the site's public origin, e.g. https://flotilla.example"],
      ["APP_SECRET", e.APP_SECRET, "32+ random characters, shared by every instance"],
      ["LICENSE_SIGNING_KEY", e.LICENSE_SIGNING_KEY, "the Ed25519 private key (PKCS#8 PEM) the desktop apps trust"],
      [
        "GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET",
        e.GOOGLE_CLIENT_ID,
        "the development sign-in is never served in production",
      ],
    ];
    for (const [name, value, why] of required) if (!value) problems.push(`${name}: required in production (${why})`);
    if (e.DEV_SIGN_IN) problems.push("DEV_SIGN_IN: cannot be enabled in production");
    if (
      e.PUBLIC_ORIGIN &&
      !e.PUBLIC_ORIGIN.startsWith("https:") &&
      !isLoopbackHost(new URL(e.PUBLIC_ORIGIN).hostname)
    ) {
      problems.push("PUBLIC_ORIGIN: must be https:// in production");
    }
  }
  const publicOrigin = (e.PUBLIC_ORIGIN ?? `http://localhost:${e.PORT}`).replace(/\/$/, "");
  const exposure = exposureOf(e.HOST, publicOrigin);
  const devSignIn = e.DEV_SIGN_IN ?? null;
  const inputs = { env: e.NODE_ENV, exposure, devSignIn };
  const reachable = `the server is reachable from other machines (HOST=${e.HOST}, PUBLIC_ORIGIN=${publicOrigin})`;
  const google =
    e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET
      ? { clientId: e.GOOGLE_CLIENT_ID, clientSecret: e.GOOGLE_CLIENT_SECRET }
      : null;
  if (!google && e.NODE_ENV !== "production" && !allows(inputs, "developmentSignIn")) {
    problems.push(
      e.DEV_SIGN_IN === false
        ? "GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET: required when DEV_SIGN_IN=false (no other way to sign in)"
        : `GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET: required when ${reachable}. The development sign-in lets anyone sign in as anyone: it runs only on loopback (HOST=localhost and a localhost PUBLIC_ORIGIN), or with DEV_SIGN_IN=true on a network you trust`,
    );
  }
  if (e.NODE_ENV !== "production" && !allows(inputs, "generatedSecrets")) {
    // Production names these itself above. Exposed, a secret made up on one disk is lost with it and differs per
    // instance: every unsubscribe link, webhook secret and license token of the deployment would change with it.
    const secrets: Array<[string, unknown, string]> = [
      ["APP_SECRET", e.APP_SECRET, "32+ random characters: openssl rand -base64 32"],
      ["LICENSE_SIGNING_KEY", e.LICENSE_SIGNING_KEY, "the Ed25519 private key (PKCS#8 PEM) the desktop apps trust"],
    ];
    for (const [name, value, what] of secrets) {
      if (!value)
        problems.push(`${name}: required when ${reachable}; it is generated into DATA_DIR only on loopback (${what})`);
    }
  }
  if (e.ARTIFACT_STORAGE === "s3" && !e.S3_BUCKET) problems.push("S3_BUCKET: required when ARTIFACT_STORAGE=s3");
  if (Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY))
    problems.push("S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: give both, or neither (the AWS SDK's default chain)");
  if (e.RELEASE_PUBLIC_KEYS) {
    try {
      parseReleasePublicKeys(e.RELEASE_PUBLIC_KEYS);
    } catch (error) {
      problems.push(`RELEASE_PUBLIC_KEYS: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new Error(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  const dataDir = resolve(e.DATA_DIR);
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    publicOrigin,
    exposure,
    devSignIn,
    siteDir: e.SERVE_SITE ? e.SITE_DIR : null,
    dataDir,
    database: e.DATABASE_URL
      ? {
          kind: "postgres",
          url: e.DATABASE_URL,
          ...(e.DATABASE_MIGRATION_URL ? { migrationUrl: e.DATABASE_MIGRATION_URL } : {}),
          poolSize: e.DATABASE_POOL_SIZE,
          connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
          statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
        }
      : { kind: "pglite", dataDir: resolve(dataDir, "pglite") },
    redisUrl: e.REDIS_URL ?? null,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    redisBreakerCoolDownMs: e.REDIS_BREAKER_COOLDOWN_MS,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    appSecret: e.APP_SECRET ?? null,
    trustProxy: e.TRUST_PROXY,
    bodyLimit: e.BODY_LIMIT,
    rateLimits: {
      signupPerMinute: e.RATE_LIMIT_SIGNUP_PER_MINUTE,
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      authFailuresPerMinute: e.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
      accountPerMinute: e.RATE_LIMIT_ACCOUNT_PER_MINUTE,
      licensePerMinute: e.RATE_LIMIT_LICENSE_PER_MINUTE,
      licenseKeyPerMinute: e.RATE_LIMIT_LICENSE_KEY_PER_MINUTE,
    },
    licenseSigningKey: e.LICENSE_SIGNING_KEY ?? null,
    identityProvider: google
      ? {
          kind: "oidc",
          issuer: e.OIDC_ISSUER_URL.replace(/\/$/, ""),
          ...google,
        }
      : { kind: "development", reason: exposure === "loopback" ? "loopback" : "opt-in" },
    sessionTtlDays: e.SESSION_TTL_DAYS,
    sessionMaxDays: Math.max(e.SESSION_MAX_DAYS, e.SESSION_TTL_DAYS),
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    counterFlushIntervalMs: e.COUNTER_FLUSH_INTERVAL_MS,
    backgroundJobs: e.BACKGROUND_JOBS,
    instanceId: e.INSTANCE_ID ?? `${hostname()}-${process.pid}`,
    adminEmails: e.ADMIN_EMAILS,
    smtpUrl: e.SMTP_URL ?? null,
    mailFrom: e.MAIL_FROM ?? `${BRAND.name} <no-reply@${new URL(publicOrigin).hostname}>`,
    smtpTimeoutMs: e.SMTP_TIMEOUT_MS,
    outboxIntervalMs: e.OUTBOX_INTERVAL_MS,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    releases: {
      storage:
        e.ARTIFACT_STORAGE === "s3" && e.S3_BUCKET
          ? {
              kind: "s3",
              bucket: e.S3_BUCKET,
              region: e.S3_REGION,
              endpoint: e.S3_ENDPOINT ?? null,
              forcePathStyle: e.S3_FORCE_PATH_STYLE,
              credentials:
                e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
                  ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
                  : null,
              prefix: e.S3_PREFIX,
            }
          : { kind: "folder" },
      publicKeys: e.RELEASE_PUBLIC_KEYS ?? null,
      expiredAccess: e.RELEASE_EXPIRED_ACCESS,
    },
  };
}
