/**
 * A small stand-in for the licensing API on 127.0.0.1:<random port>: validate (with machine binding and every
 * result code), usage (idempotent by Idempotency-Key), checkout (license files), execution leases (start, heartbeat,
 * end, running; capped per license by its tier), public key, tiers, configurations and health. Tokens are
 * signed with a fresh Ed25519 key. Responses can be scripted per path to simulate failures.
 */
import { createCipheriv, sign as cryptoSign, KeyObject, randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ExecutionLeaseRequestSchema, StartExecutionRequestSchema } from "@flotilla/contracts/execution-api";
import {
  EXECUTION_CODES,
  EXECUTION_MESSAGES,
  EXECUTION_RULES,
  type ExecutionEndReason,
} from "@flotilla/contracts/executions";
import { LICENSE_FILE_AAD, LICENSE_FILE_TOKEN_TYPE, licenseFileKey } from "@flotilla/contracts/license-file";
import { CheckoutRequestSchema, UsageRequestSchema, ValidateRequestSchema } from "@flotilla/contracts/licensing";
import { LICENSE_FILE_FORMAT, NONCE_HEADER, SEAT_RULES, SIGNATURE_HEADER } from "@flotilla/contracts/seats";
import { CLIENT_CONFIGURATION, LICENSE_CODE_MESSAGES, type LicenseCode, TIERS } from "@flotilla/contracts/tiers";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import { signatureHeader } from "../../../apps/api/src/modules/licenses/answer-signing";
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from "../src/offline";
import { keyIdOf, type TrustedKey, trustedKey } from "../src/trusted-keys";

export const GRACE_SECONDS = CLIENT_CONFIGURATION.offlineGraceSeconds;

export interface FakeLicense {
  key: string;
  tier: keyof typeof TIERS;
  status: "active" | "suspended" | "expired";
  expires_at: string | null;
  max_machines: number;
}

interface LicenseRecord extends FakeLicense {
  id: string;
  machines: Array<{ machine_id: string; display_id: string; is_primary: boolean }>;
  executions: number;
}

export interface ScriptedResponse {
  /** Required unless hang is set. */
  status?: number;
  body?: unknown;
  /** Sent as is instead of JSON. */
  raw?: string;
  headers?: Record<string, string>;
  /** Run the real handler first (its side effects happen), then send this response instead of its answer. */
  afterHandling?: boolean;
  /** Never answer (to exercise timeouts). */
  hang?: boolean;
  /** Desktop answers are signed like the real server's; this sends one without a signature (a proxy's forgery). */
  unsigned?: boolean;
}

export interface FakeLease {
  id: string;
  license_key: string;
  machine_id: string;
  feature: string;
  started_at: Date;
  expires_at: Date;
  ended: ExecutionEndReason | null;
  ended_at: Date | null;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export interface FakeServer {
  url: string;
  kid: string;
  publicJwk: JWK;
  /** What an app built against this server pins. */
  trustedKeys: TrustedKey[];
  privateKey: KeyPair["privateKey"];
  requests: RecordedRequest[];
  licenses: Map<string, LicenseRecord>;
  /** Execution leases by id (ended ones too). */
  leases: Map<string, FakeLease>;
  /** Queue responses for a path; each request to it takes the next one until the queue is empty. */
  script(path: string, ...responses: ScriptedResponse[]): void;
  /** Signs a token like the server's, with optional claim overrides. */
  sign(
    claims: Record<string, unknown>,
    options?: { iat?: number; exp?: number; key?: KeyPair["privateKey"]; kid?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

export const KEYS = {
  free: "FLOT-AAAAA-BBBBB-CCCCC-DDDDD-EEEEE",
  suspended: "FLOT-SSSSS-BBBBB-CCCCC-DDDDD-EEEEE",
  expired: "FLOT-XXXXX-BBBBB-CCCCC-DDDDD-EEEEE",
  single: "FLOT-11111-BBBBB-CCCCC-DDDDD-EEEEE",
  unknown: "FLOT-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ",
} as const;

export const DEFAULT_LICENSES: FakeLicense[] = [
  { key: KEYS.free, tier: "free", status: "active", expires_at: null, max_machines: 3 },
  { key: KEYS.suspended, tier: "free", status: "suspended", expires_at: null, max_machines: 3 },
  { key: KEYS.expired, tier: "free", status: "active", expires_at: "2020-01-01T00:00:00.000Z", max_machines: 3 },
  { key: KEYS.single, tier: "free", status: "active", expires_at: null, max_machines: 1 },
];

export async function startFakeServer(
  options: {
    licenses?: FakeLicense[];
    kid?: string;
    now?: () => Date;
    /** What execution answers ask for (default EXECUTION_RULES.heartbeatIntervalSeconds). */
    executionHeartbeatSeconds?: number;
  } = {},
): Promise<FakeServer> {
  const now = options.now ?? (() => new Date());
  const { publicKey, privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const publicJwk = await exportJWK(publicKey);
  // Like the real server: the key id is derived from the key.
  const kid = options.kid ?? keyIdOf(publicJwk.x!);
  const licenses = new Map<string, LicenseRecord>();
  for (const license of options.licenses ?? DEFAULT_LICENSES) {
    licenses.set(license.key, { ...license, id: randomUUID(), machines: [], executions: 0 });
  }
  const nodeKey = KeyObject.from(privateKey as unknown as CryptoKey);
  const answerSigner = {
    kid,
    signDetached: (data: string | Buffer) =>
      cryptoSign(null, typeof data === "string" ? Buffer.from(data) : data, nodeKey).toString("base64url"),
  };
  const requests: RecordedRequest[] = [];
  const scripts = new Map<string, ScriptedResponse[]>();
  const usageByKey = new Map<string, { status: number; body: unknown }>();
  const hanging = new Set<ServerResponse>();
  const leases = new Map<string, FakeLease>();
  const executionHeartbeatSeconds = options.executionHeartbeatSeconds ?? EXECUTION_RULES.heartbeatIntervalSeconds;

  const sign: FakeServer["sign"] = async (claims, signOptions = {}) => {
    const iat = signOptions.iat ?? Math.floor(now().getTime() / 1000);
    const payload: JWTPayload = {
      iss: TOKEN_ISSUER,
      aud: TOKEN_AUDIENCE,
      iat,
      exp: signOptions.exp ?? iat + GRACE_SECONDS,
    };
    return new SignJWT({ ...payload, ...claims })
      .setProtectedHeader({ alg: "EdDSA", kid: signOptions.kid ?? kid, typ: "JWT" })
      .sign(signOptions.key ?? privateKey);
  };

  async function validate(body: unknown): Promise<{ status: number; body: unknown }> {
    const parsed = ValidateRequestSchema.safeParse(body);
    if (!parsed.success) return validationError(parsed.error.issues[0]?.message);
    const { license_key, machine_id } = parsed.data;
    // Like the real server: keys compare upper-case.
    const license = licenses.get(license_key.toUpperCase());
    const answer = (
      code: LicenseCode,
      extra: { machine?: LicenseRecord["machines"][number]; token?: string } = {},
    ) => ({
      status: 200,
      body: {
        success: true,
        data: {
          valid: code === "VALID",
          code,
          message: LICENSE_CODE_MESSAGES[code],
          license: license
            ? {
                tier: license.tier,
                status: license.status,
                expires_at: license.expires_at,
                features: TIERS[license.tier].features,
                max_machines: license.max_machines,
              }
            : null,
          machine: extra.machine
            ? { display_id: extra.machine.display_id, is_primary: extra.machine.is_primary }
            : null,
          token: extra.token ?? null,
          heartbeat_interval_seconds: code === "VALID" && license ? TIERS[license.tier].heartbeatIntervalSeconds : null,
        },
      },
    });
    if (!license) return answer("NOT_FOUND");
    if (license.status === "suspended") return answer("SUSPENDED");
    if (license.status === "expired" || (license.expires_at && Date.parse(license.expires_at) < now().getTime())) {
      return answer("EXPIRED");
    }
    let machine = license.machines.find((m) => m.machine_id === machine_id);
    if (!machine) {
      if (license.machines.length >= license.max_machines) return answer("TOO_MANY_MACHINES");
      machine = {
        machine_id,
        display_id: `M-${String(license.machines.length + 1).padStart(4, "0")}`,
        is_primary: license.machines.length === 0,
      };
      license.machines.push(machine);
    }
    const token = await sign({
      sub: license.id,
      lic: license.key,
      mid: machine_id,
      tier: license.tier,
      status: license.status,
      features: TIERS[license.tier].features,
      max_machines: license.max_machines,
    });
    return answer("VALID", { machine, token });
  }

  function usage(body: unknown, idempotencyKey: string | undefined): { status: number; body: unknown } {
    if (idempotencyKey) {
      const seen = usageByKey.get(idempotencyKey);
      if (seen) return seen;
    }
    const result = recordUsage(body);
    if (idempotencyKey && result.status < 500) usageByKey.set(idempotencyKey, result);
    return result;
  }

  function recordUsage(body: unknown): { status: number; body: unknown } {
    const parsed = UsageRequestSchema.safeParse(body);
    if (!parsed.success) return validationError(parsed.error.issues[0]?.message);
    const license = licenses.get(parsed.data.license_key.toUpperCase());
    if (!license) return { status: 404, body: { success: false, error: "License not found", code: "NOT_FOUND" } };
    if (license.status === "suspended") {
      return { status: 403, body: { success: false, error: LICENSE_CODE_MESSAGES.SUSPENDED, code: "SUSPENDED" } };
    }
    if (!license.machines.some((m) => m.machine_id === parsed.data.machine_id)) {
      return {
        status: 403,
        body: {
          success: false,
          error: "This machine is not activated for this license",
          code: "NOT_ACTIVATED",
        },
      };
    }
    license.executions += parsed.data.executions;
    return {
      status: 200,
      body: { success: true, data: { recorded: parsed.data.executions, current_month_executions: license.executions } },
    };
  }

  const problem = (status: number, code: string, error: string, extra: Record<string, unknown> = {}) => ({
    status,
    body: { success: false, error, code, ...extra },
  });

  /** The license a desktop call names, in force, with the machine bound; else the server's refusal. */
  function boundLicense(licenseKey: string, machineId: string): LicenseRecord | { status: number; body: unknown } {
    const license = licenses.get(licenseKey.toUpperCase());
    if (!license) return problem(404, "NOT_FOUND", LICENSE_CODE_MESSAGES.NOT_FOUND);
    if (license.status === "suspended") return problem(403, "SUSPENDED", LICENSE_CODE_MESSAGES.SUSPENDED);
    if (!license.machines.some((m) => m.machine_id === machineId)) {
      return problem(403, "NOT_ACTIVATED", LICENSE_CODE_MESSAGES.NOT_ACTIVATED);
    }
    return license;
  }

  const leaseView = (lease: FakeLease) => ({
    id: lease.id,
    feature: lease.feature,
    started_at: lease.started_at.toISOString(),
    heartbeat_interval_seconds: executionHeartbeatSeconds,
    expires_at: lease.expires_at.toISOString(),
  });
  const runningOf = (license: LicenseRecord) =>
    [...leases.values()].filter(
      (lease) => lease.license_key === license.key && lease.ended === null && lease.expires_at > now(),
    );
  const limitOf = (license: LicenseRecord) => TIERS[license.tier].features.maxConcurrentExecutions;
  const refusal = (license: LicenseRecord) => {
    const running = runningOf(license);
    const limit = limitOf(license) ?? running.length;
    return problem(409, EXECUTION_CODES.limit, EXECUTION_MESSAGES.limit(limit), {
      limit,
      running: running.map((lease) => {
        const machine = license.machines.find((m) => m.machine_id === lease.machine_id);
        return {
          display_id: machine?.display_id ?? "M-0000",
          machine_name: `Machine ${lease.machine_id}`,
          started_at: lease.started_at.toISOString(),
          expires_at: lease.expires_at.toISOString(),
        };
      }),
      oldest_expires_at: (
        running.map((lease) => lease.expires_at).sort((a, b) => a.getTime() - b.getTime())[0] ?? now()
      ).toISOString(),
    });
  };
  const expiry = () =>
    new Date(now().getTime() + (executionHeartbeatSeconds + EXECUTION_RULES.driftAllowanceSeconds) * 1000);

  function executions(path: string, body: unknown): { status: number; body: unknown } {
    if (path === "/api/license/executions") {
      const parsed = StartExecutionRequestSchema.safeParse(body);
      if (!parsed.success) return validationError(parsed.error.issues[0]?.message);
      const license = boundLicense(parsed.data.license_key, parsed.data.machine_id);
      if (!("key" in license)) return license;
      const limit = limitOf(license);
      if (limit !== null && runningOf(license).length >= limit) return refusal(license);
      const lease: FakeLease = {
        id: randomUUID(),
        license_key: license.key,
        machine_id: parsed.data.machine_id,
        feature: parsed.data.feature ?? "",
        started_at: now(),
        expires_at: expiry(),
        ended: null,
        ended_at: null,
      };
      leases.set(lease.id, lease);
      const data = { execution: leaseView(lease), running: runningOf(license).length, limit, revived: false };
      return { status: 200, body: { success: true, data } };
    }
    const parsed = ExecutionLeaseRequestSchema.safeParse(body);
    if (!parsed.success) return validationError(parsed.error.issues[0]?.message);
    const license = boundLicense(parsed.data.license_key, parsed.data.machine_id);
    if (!("key" in license)) return license;
    if (path === "/api/license/executions/running") {
      const data = {
        limit: limitOf(license),
        running: runningOf(license).map((lease) => {
          const mine = lease.machine_id === parsed.data.machine_id;
          const machine = license.machines.find((m) => m.machine_id === lease.machine_id);
          return {
            id: mine ? lease.id : "",
            feature: lease.feature,
            this_machine: mine,
            display_id: machine?.display_id ?? "M-0000",
            machine_name: `Machine ${lease.machine_id}`,
            started_at: lease.started_at.toISOString(),
            expires_at: lease.expires_at.toISOString(),
          };
        }),
      };
      return { status: 200, body: { success: true, data } };
    }
    const match = /^\/api\/license\/executions\/([^/]+)\/(heartbeat|end)$/.exec(path);
    const lease = match ? leases.get(match[1]!) : undefined;
    if (!match) return problem(404, "NOT_FOUND", "Not found");
    if (!lease || lease.license_key !== license.key || lease.machine_id !== parsed.data.machine_id) {
      return problem(404, EXECUTION_CODES.notFound, EXECUTION_MESSAGES.notFound);
    }
    if (match[2] === "end") {
      if (lease.ended === null) {
        lease.ended = lease.expires_at > now() ? "completed" : "expired";
        lease.ended_at = now();
      }
      const data = { ended: true, end_reason: lease.ended, ended_at: lease.ended_at!.toISOString() };
      return { status: 200, body: { success: true, data } };
    }
    if (lease.ended !== null) return problem(410, EXECUTION_CODES.ended, EXECUTION_MESSAGES.ended);
    const revived = lease.expires_at <= now();
    const limit = limitOf(license);
    if (revived && limit !== null && runningOf(license).length >= limit) return refusal(license);
    lease.expires_at = expiry();
    const data = { execution: leaseView(lease), running: runningOf(license).length, limit, revived };
    return { status: 200, body: { success: true, data } };
  }

  async function checkout(body: unknown): Promise<{ status: number; body: unknown }> {
    const parsed = CheckoutRequestSchema.safeParse(body);
    if (!parsed.success) return validationError(parsed.error.issues[0]?.message);
    const license = boundLicense(parsed.data.license_key, parsed.data.machine_id);
    if (!("key" in license)) return license;
    const ttl = parsed.data.ttl_seconds ?? SEAT_RULES.licenseFileDefaultTtlSeconds;
    const iat = Math.floor(now().getTime() / 1000);
    const token = await sign(
      {
        typ: LICENSE_FILE_TOKEN_TYPE,
        sub: license.id,
        lic: license.key,
        mid: parsed.data.machine_id,
        tier: license.tier,
        status: license.status,
        features: TIERS[license.tier].features,
        max_machines: license.max_machines,
      },
      { iat, exp: iat + ttl },
    );
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", licenseFileKey(license.key, parsed.data.machine_id), iv);
    cipher.setAAD(LICENSE_FILE_AAD);
    const ciphertext = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
    const file = {
      format: LICENSE_FILE_FORMAT,
      kid,
      iv: iv.toString("base64url"),
      ciphertext: ciphertext.toString("base64url"),
      tag: cipher.getAuthTag().toString("base64url"),
      issued_at: new Date(iat * 1000).toISOString(),
      expires_at: new Date((iat + ttl) * 1000).toISOString(),
    };
    return { status: 200, body: { success: true, data: { license_file: file } } };
  }

  async function route(method: string, path: string, body: unknown, headers: IncomingHttpHeaders) {
    const key = typeof headers["idempotency-key"] === "string" ? headers["idempotency-key"] : undefined;
    if (method === "POST" && path === "/api/license/validate") return validate(body);
    if (method === "POST" && path.startsWith("/api/license/executions")) return executions(path, body);
    if (method === "POST" && path === "/api/license/checkout") return checkout(body);
    if (method === "POST" && path === "/api/license/usage") return usage(body, key);
    if (method === "GET" && path === "/api/license/public-key") {
      return { status: 200, body: { success: true, data: { kid, alg: "EdDSA", jwk: { ...publicJwk, kid } } } };
    }
    if (method === "GET" && path === "/api/license/tiers") return { status: 200, body: { success: true, data: TIERS } };
    if (method === "GET" && path === "/api/license/configurations") {
      return {
        status: 200,
        body: {
          success: true,
          data: {
            heartbeat_interval_seconds: TIERS.free.heartbeatIntervalSeconds,
            offline_grace_seconds: CLIENT_CONFIGURATION.offlineGraceSeconds,
            usage_report_interval_seconds: CLIENT_CONFIGURATION.usageReportIntervalSeconds,
            tiers: TIERS,
          },
        },
      };
    }
    if (method === "GET" && path === "/api/license/health") {
      return { status: 200, body: { success: true, data: { status: "ok" } } };
    }
    return { status: 404, body: { success: false, error: "Not found", code: "NOT_FOUND" } };
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const method = req.method ?? "GET";
    let body: unknown;
    let malformed = false;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        malformed = true;
      }
    }
    requests.push({ method, path, headers: req.headers, body });

    const scripted = scripts.get(path)?.shift();
    if (scripted?.hang) {
      hanging.add(res);
      return;
    }
    let result: { status: number; body: unknown } = malformed
      ? { status: 400, body: { success: false, error: "Malformed JSON body", code: "MALFORMED_JSON" } }
      : { status: 0, body: undefined };
    if (!malformed && (!scripted || scripted.afterHandling)) result = await route(method, path, body, req.headers);
    // Like the real server: every answer to a desktop call is signed, over the bytes sent and the request's nonce.
    const signed = (payload: string, extra: Record<string, string> = {}) => {
      const nonce = req.headers[NONCE_HEADER];
      if (method !== "POST" || !path.startsWith("/api/license/") || scripted?.unsigned) return extra;
      const header = signatureHeader(answerSigner, {
        method,
        path: req.url ?? path,
        nonce: typeof nonce === "string" ? nonce : null,
        body: payload,
        created: Math.floor(now().getTime() / 1000),
      });
      return { [SIGNATURE_HEADER]: header, ...extra };
    };
    if (scripted) {
      const payload = scripted.raw ?? JSON.stringify(scripted.body ?? { success: false, error: "Scripted failure" });
      res.writeHead(
        scripted.status ?? 500,
        signed(payload, { "content-type": "application/json", ...scripted.headers }),
      );
      res.end(payload);
      return;
    }
    const payload = JSON.stringify(result.body);
    res.writeHead(result.status, signed(payload, { "content-type": "application/json" }));
    res.end(payload);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    kid,
    publicJwk,
    trustedKeys: [trustedKey(publicJwk.x!)],
    privateKey,
    requests,
    licenses,
    leases,
    script(path, ...responses) {
      scripts.set(path, [...(scripts.get(path) ?? []), ...responses]);
    },
    sign,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An address where nothing listens (a port just released). */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function validationError(message = "Invalid request") {
  return { status: 400, body: { success: false, error: message, code: "VALIDATION_ERROR" } };
}
