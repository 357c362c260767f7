/**
 * Distribution's routes (contracts/releases.ts lists them all): the operator's (operator token or admin session),
 * the console's (admin session), the desktop app's (license key + machine, signed answers), the updater feeds
 * (`Authorization: License <key>` + `Flotilla-Machine-Id`), the portal's, and the public ones.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import {
  AddArtifactRequestSchema,
  ArtifactAnswerSchema,
  ArtifactUploadAnswerSchema,
  CompleteUploadRequestSchema,
  CreateOperatorTokenRequestSchema,
  CreateReleaseRequestSchema,
  CustomerDownloadsAnswerSchema,
  FEED_AUTH_SCHEME,
  MACHINE_ID_HEADER,
  OperatorTokenAnswerSchema,
  OperatorTokenCreatedAnswerSchema,
  OperatorTokenListAnswerSchema,
  PlatformSwitchesAnswerSchema,
  PromoteRequestSchema,
  PublicPlatformsAnswerSchema,
  RELEASE_ERRORS,
  RELEASE_PLATFORMS,
  ReleaseAnswerSchema,
  ReleaseChannelSchema,
  ReleaseListAnswerSchema,
  ReleaseListQuerySchema,
  ReleaseNotesAnswerSchema,
  ReleaseNotesQuerySchema,
  type ReleasePlatform,
  ReleasePlatformSchema,
  SemverSchema,
  SetPlatformRequestSchema,
  TauriUpdateSchema,
  UPLOAD_CONTENT_TYPE,
  UPLOAD_OFFSET_HEADER,
  UpdateCheckAnswerSchema,
  UpdateCheckRequestSchema,
  UploadPartsAnswerSchema,
  UploadPartsRequestSchema,
  UploadStatusAnswerSchema,
  YankRequestSchema,
} from "@flotilla/contracts/releases";
import { LICENSE_CODE_MESSAGES } from "@flotilla/contracts/tiers";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import type { Database } from "../../db/client";
import { refusals } from "../../plugins/answers";
import { bearerToken, requireSession, sessionOf } from "../../plugins/auth-guard";
import { HttpProblem } from "../../plugins/errors";
import type { AdminRoles } from "../admin/roles";
import type { AuthService } from "../auth/service";
import type { Actor } from "../events/record";
import { signAnswers } from "../licenses/answer-signing";
import { normalizeLicenseKey } from "../licenses/keys";
import type { LicensingService } from "../licenses/licensing-service";
import type { LicenseRow } from "../licenses/queries";
import { licensesOfCustomer } from "../licenses/queries";
import type { LicenseSigner } from "../licenses/signing";
import { appcast } from "./feeds";
import { artifactJson, type ReleaseService } from "./service";
import { FolderStorage, S3Storage } from "./storage";

declare module "fastify" {
  interface FastifyRequest {
    releaseActor?: Actor;
  }
}

const bearer = [{ bearerAuth: [] }];
const licenseAuth = [{ licenseAuth: [] }];
const withBody = { body: true } as const;
const OPERATOR = {
  401: "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended; INVALID_TOKEN: the operator token is unknown or revoked.",
  403: "FORBIDDEN: the signed-in account is not an admin, or the operator token lacks the releases:write scope.",
  429: "RATE_LIMITED: too many requests from this address this minute (RATE_LIMIT_PER_MINUTE); retry after Retry-After.",
} as const;
const ADMIN_ONLY = {
  401: "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended.",
  403: "FORBIDDEN: the signed-in account is not an admin (operator tokens cannot manage tokens or the switch).",
  429: OPERATOR[429],
} as const;
const NO_RELEASE = "NOT_FOUND: no release has this id.";
const NO_UPLOAD = "NOT_FOUND: no upload has this id.";
const BAD_INPUT =
  "VALIDATION_ERROR: a field is missing or invalid (the error names it); MALFORMED_JSON: the body is not JSON.";
const FEED = {
  400: "VALIDATION_ERROR: a parameter is invalid (the error names it).",
  401: "UNAUTHENTICATED: no `Authorization: License <key>` header, or no Flotilla-Machine-Id header.",
  403: "SUSPENDED or EXPIRED: the license is not in force; NOT_ACTIVATED: this machine holds no slot of it (validate first); NOT_ENTITLED: this license may not have this release; PLATFORM_CLOSED: downloads for this platform are not open.",
  404: "NOT_FOUND: no license has this key; or no published artifact has this id.",
  429: "RATE_LIMITED: too many calls from this address this minute (RATE_LIMIT_LICENSE_PER_MINUTE); retry after Retry-After.",
} as const;
const ReleaseParams = z.object({ releaseId: z.string().min(1).max(64) });
const UploadParams = z.object({ uploadId: z.string().min(1).max(64) });
const TokenParams = z.object({ tokenId: z.string().min(1).max(64) });
const PlatformParams = z.object({ platform: ReleasePlatformSchema });
const ArtifactParams = z.object({ artifactId: z.string().min(1).max(64) });
const DownloadParams = z.object({ token: z.string().min(1).max(512) });
/** Tauri's {{target}} is the OS (darwin, linux, windows); {{arch}} x86_64, aarch64, i686, armv7. */
const TauriParams = z.object({
  target: z.string().min(1).max(32),
  arch: z.string().min(1).max(32),
  currentVersion: z.string().min(1).max(64),
});
const FeedQuery = z.object({
  channel: ReleaseChannelSchema.default("stable"),
  arch: z.enum(["x86_64", "aarch64", "universal"]).optional(),
});

const TAURI_TARGETS: Record<string, ReleasePlatform> = {
  darwin: "macos",
  macos: "macos",
  linux: "linux",
  windows: "windows",
};

export function registerReleaseRoutes(
  app: FastifyInstance,
  deps: {
    db: Database;
    releases: ReleaseService;
    licensing: LicensingService;
    signer: LicenseSigner;
    auth: AuthService;
    roles: AdminRoles;
    config: Config;
  },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { releases, config } = deps;
  const perMinute = { rateLimit: { max: config.rateLimits.perMinute, timeWindow: "1 minute" } };
  const desktopLimit = { rateLimit: { max: config.rateLimits.licensePerMinute, timeWindow: "1 minute" } };
  const session = requireSession(deps.auth);

  /** An operator token with releases:write, or an admin session. */
  async function operatorGuard(request: FastifyRequest, reply: FastifyReply) {
    const token = bearerToken(request);
    if (token?.startsWith("flt_op_")) {
      const row = await releases.authenticateToken(token);
      if (!row) {
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="api", error="invalid_token"')
          .send({ success: false, error: RELEASE_ERRORS.tokenInvalid, code: "INVALID_TOKEN" });
      }
      if (!row.scopes.includes("releases:write")) {
        return reply.code(403).send({ success: false, error: RELEASE_ERRORS.scopeMissing, code: "FORBIDDEN" });
      }
      request.releaseActor = { type: "service", id: `operator-token:${row.id}` };
      return;
    }
    return adminGuard(request, reply);
  }

  async function adminGuard(request: FastifyRequest, reply: FastifyReply) {
    await session(request, reply);
    if (reply.sent || !request.session) return;
    const source = await deps.roles.sourceOf(request.session.customer.email);
    if (!source) {
      return reply.code(403).send({ success: false, error: "This needs an admin account.", code: "FORBIDDEN" });
    }
    request.releaseActor = { type: "admin", id: request.session.customer.id };
  }

  const actorOf = (request: FastifyRequest): Actor => {
    if (!request.releaseActor) throw new Error("route is missing the operator guard");
    return request.releaseActor;
  };
  const operatorRoute = { preValidation: operatorGuard, config: perMinute };
  const adminRoute = { preValidation: adminGuard, config: perMinute };
  const tags = ["Releases"];

  // ── Operator ───────────────────────────────────────────────────────────────────────────────────────────────

  api.post(
    "/api/admin/releases",
    {
      ...operatorRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Create a draft release (operator token or admin)",
        description:
          "The version is a semantic version, unique across channels. A draft takes artifacts, then is published.",
        body: CreateReleaseRequestSchema,
        response: {
          200: ReleaseAnswerSchema,
          ...refusals(
            { ...OPERATOR, 400: BAD_INPUT, 409: "VERSION_TAKEN: a release with this version exists." },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await releases.create(request.body, actorOf(request)),
    }),
  );

  api.get(
    "/api/admin/releases",
    {
      ...operatorRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Releases, newest first, with their artifacts and download counts per platform",
        querystring: ReleaseListQuerySchema,
        response: {
          200: ReleaseListAnswerSchema,
          ...refusals({ ...OPERATOR, 400: "VALIDATION_ERROR: a bad filter." }),
        },
      },
    },
    async (request) => ({ success: true as const, data: await releases.list(request.query) }),
  );

  api.get(
    "/api/admin/releases/:releaseId",
    {
      ...operatorRoute,
      schema: {
        tags,
        security: bearer,
        summary: "One release with its artifacts",
        params: ReleaseParams,
        response: {
          200: ReleaseAnswerSchema,
          ...refusals({ ...OPERATOR, 400: "VALIDATION_ERROR: the id is too long.", 404: NO_RELEASE }),
        },
      },
    },
    async (request) => ({ success: true as const, data: await releases.get(request.params.releaseId) }),
  );

  api.post(
    "/api/admin/releases/:releaseId/artifacts",
    {
      ...operatorRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Add an artifact to a draft: declares its size, checksums and signatures, answers where to upload",
        description:
          "Folder storage: HEAD/PATCH the `url` (tus-like, `Upload-Offset`, Content-Type application/offset+octet-stream). S3: ask for presigned part URLs (`/parts`) and PUT each part straight to the bucket. Then `/complete`: the server reads the bytes back once and verifies size, SHA-256, SHA-512, the Ed25519 (Sparkle) and minisign (Tauri) signatures against RELEASE_PUBLIC_KEYS.",
        params: ReleaseParams,
        body: AddArtifactRequestSchema,
        response: {
          200: ArtifactUploadAnswerSchema,
          ...refusals(
            {
              ...OPERATOR,
              400: BAD_INPUT,
              404: NO_RELEASE,
              409: "NOT_DRAFT: the release is published or yanked; ARTIFACT_TAKEN: it has an artifact for this platform and arch.",
              503: "NO_RELEASE_KEYS: no release public key is configured (RELEASE_PUBLIC_KEYS), so nothing could be verified.",
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await releases.addArtifact(request.params.releaseId, request.body),
    }),
  );

  api.delete(
    "/api/admin/releases/:releaseId/artifacts/:artifactId",
    {
      ...operatorRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Remove a draft's artifact and its bytes (an abandoned or wrong upload), to add it again",
        params: ReleaseParams.extend({ artifactId: z.string().min(1).max(64) }),
        response: {
          200: ReleaseAnswerSchema,
          ...refusals(
            {
              ...OPERATOR,
              400: "VALIDATION_ERROR: an id is too long.",
              404: "NOT_FOUND: no release has this id, or it has no artifact with this id.",
              409: "NOT_DRAFT: a published or yanked release keeps its artifacts.",
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await releases.removeArtifact(request.params.releaseId, request.params.artifactId),
    }),
  );

  api.get(
    "/api/admin/uploads/:uploadId",
    {
      ...operatorRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Where an upload stands (resume from here); HEAD answers the same Upload-Offset header",
        params: UploadParams,
        response: {
          200: UploadStatusAnswerSchema,
          ...refusals({ ...OPERATOR, 400: "VALIDATION_ERROR: the id is too long.", 404: NO_UPLOAD }),
        },
      },
    },
    async (request, reply) => {
      const status = await releases.uploadStatus(request.params.uploadId);
      reply.header(UPLOAD_OFFSET_HEADER, String(status.offset)).header("upload-length", String(status.size));
      reply.header("cache-control", "no-store");
      return { success: true as const, data: status };
    },
  );

  // The folder's PATCH reads its body as a stream, straight to disk: registered in a context of its own, so the
  // raw-stream parser applies to this route only.
  app.register(async (scope) => {
    scope.addContentTypeParser(UPLOAD_CONTENT_TYPE, (_request, payload, done) => done(null, payload));
    scope.withTypeProvider<ZodTypeProvider>().patch(
      "/api/admin/uploads/:uploadId",
      {
        ...operatorRoute,
        bodyLimit: Number.MAX_SAFE_INTEGER,
        schema: {
          tags,
          security: bearer,
          summary: "Folder storage: append bytes at the Upload-Offset (resumable)",
          description:
            "Content-Type application/offset+octet-stream; `Upload-Offset` must be where the upload stands (GET or HEAD it). Answers 204 with the new `Upload-Offset`. An interrupted body keeps what arrived.",
          params: UploadParams,
          headers: z.object({ "upload-offset": z.coerce.number().int().min(0) }).passthrough(),
          response: {
            204: z.null().describe("Stored; `Upload-Offset` says how far."),
            ...refusals(
              {
                ...OPERATOR,
                400: "VALIDATION_ERROR: no Upload-Offset header, or not a number.",
                404: NO_UPLOAD,
                409: {
                  meaning:
                    "OFFSET_MISMATCH: Upload-Offset is not where the upload stands (`offset` says where); WRONG_STORAGE: this upload goes to S3; UPLOAD_COMPLETE.",
                  schema: ApiErrorSchema.extend({ offset: z.number().int().optional() }),
                },
                413: "SIZE_MISMATCH: more bytes than the artifact's declared size.",
              },
              withBody,
            ),
          },
        },
      },
      async (request, reply) => {
        const offset = await releases.appendFolder(
          request.params.uploadId,
          Number(request.headers["upload-offset"]),
          request.body as NodeJS.ReadableStream as import("node:stream").Readable,
        );
        return reply.code(204).header(UPLOAD_OFFSET_HEADER, String(offset)).send(null);
      },
    );
  });

  api.post(
    "/api/admin/uploads/:uploadId/parts",
    {
      ...operatorRoute,
      schema: {
        tags,
        security: bearer,
        summary: "S3 storage: presigned PUT URLs for parts (valid 5 minutes)",
        params: UploadParams,
        body: UploadPartsRequestSchema,
        response: {
          200: UploadPartsAnswerSchema,
          ...refusals(
            {
              ...OPERATOR,
              400: `${BAD_INPUT} Or a part number past the upload's last part.`,
              404: NO_UPLOAD,
              409: "WRONG_STORAGE: this upload goes to the folder (PATCH it); UPLOAD_COMPLETE.",
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await releases.partUrls(request.params.uploadId, request.body.part_numbers),
    }),
  );

  api.post(
    "/api/admin/uploads/:uploadId/complete",
    {
      ...operatorRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Finish an upload: the server verifies size, checksums and both signatures",
        description:
          "A mismatch discards the bytes and the artifact (422, the code says what failed): add the artifact again. Completing a complete upload answers it again.",
        params: UploadParams,
        body: CompleteUploadRequestSchema,
        response: {
          200: ArtifactAnswerSchema,
          ...refusals(
            {
              ...OPERATOR,
              400: BAD_INPUT,
              404: NO_UPLOAD,
              409: "UPLOAD_INCOMPLETE: not every byte has arrived; NOT_DRAFT: the release is no longer a draft.",
              422: "SIZE_MISMATCH, CHECKSUM_MISMATCH, SIGNATURE_INVALID or MINISIGN_INVALID: the stored bytes are not what was declared, or not signed by a trusted release key.",
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await releases.complete(request.params.uploadId, request.body.parts, actorOf(request)),
    }),
  );

  for (const [action, summary, body] of [
    ["publish", "Publish a draft (every artifact verified): updaters and the portal offer it", z.strictObject({})],
    ["yank", "Yank a published release: nothing offers it any more, links to it stop working", YankRequestSchema],
    ["promote", "Move a published release to another channel (beta → stable)", PromoteRequestSchema],
  ] as const) {
    api.post(
      `/api/admin/releases/:releaseId/${action}`,
      {
        ...operatorRoute,
        schema: {
          tags,
          security: bearer,
          summary,
          params: ReleaseParams,
          body: body as z.ZodType,
          response: {
            200: ReleaseAnswerSchema,
            ...refusals(
              {
                ...OPERATOR,
                400: BAD_INPUT,
                404: NO_RELEASE,
                409:
                  action === "publish"
                    ? "NOT_DRAFT: already published or yanked; NO_ARTIFACTS: no artifact, or one not verified yet."
                    : action === "yank"
                      ? "NOT_PUBLISHED: only a published release can be yanked."
                      : "NOT_PUBLISHED: only a published release can be promoted; SAME_CHANNEL.",
              },
              withBody,
            ),
          },
        },
      },
      async (request) => {
        const id = (request.params as { releaseId: string }).releaseId;
        const actor = actorOf(request);
        const input = (request.body ?? {}) as { reason?: string; channel?: z.infer<typeof ReleaseChannelSchema> };
        const data =
          action === "publish"
            ? await releases.publish(id, actor)
            : action === "yank"
              ? await releases.yank(id, input.reason, actor)
              : await releases.promote(id, input.channel ?? "stable", actor);
        return { success: true as const, data };
      },
    );
  }

  // ── Console only ───────────────────────────────────────────────────────────────────────────────────────────

  api.get(
    "/api/admin/operator-tokens",
    {
      ...adminRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Operator tokens (never their secret)",
        response: { 200: OperatorTokenListAnswerSchema, ...refusals(ADMIN_ONLY) },
      },
    },
    async () => ({ success: true as const, data: await releases.listTokens() }),
  );

  api.post(
    "/api/admin/operator-tokens",
    {
      ...adminRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Create an operator token for CI; its secret is in this answer only",
        description: "The service keeps the token's SHA-256 only. Audited (operator_token.created).",
        body: CreateOperatorTokenRequestSchema,
        response: { 200: OperatorTokenCreatedAnswerSchema, ...refusals({ ...ADMIN_ONLY, 400: BAD_INPUT }, withBody) },
      },
    },
    async (request) => ({
      success: true as const,
      data: await releases.createToken(request.body.name, request.body.scopes, actorOf(request)),
    }),
  );

  api.delete(
    "/api/admin/operator-tokens/:tokenId",
    {
      ...adminRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Revoke an operator token (at once, on every instance)",
        params: TokenParams,
        response: {
          200: OperatorTokenAnswerSchema,
          ...refusals(
            { ...ADMIN_ONLY, 400: "VALIDATION_ERROR: the id is too long.", 404: "NOT_FOUND: no token has this id." },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await releases.revokeToken(request.params.tokenId, actorOf(request)),
    }),
  );

  api.get(
    "/api/admin/downloads/platforms",
    {
      ...adminRoute,
      schema: {
        tags,
        security: bearer,
        summary: "The download switch per platform (closed until opened)",
        response: { 200: PlatformSwitchesAnswerSchema, ...refusals(ADMIN_ONLY) },
      },
    },
    async () => ({ success: true as const, data: await releases.platforms() }),
  );

  api.put(
    "/api/admin/downloads/platforms/:platform",
    {
      ...adminRoute,
      schema: {
        tags,
        security: bearer,
        summary: "Open or close downloads for a platform (audited, sent as a webhook)",
        params: PlatformParams,
        body: SetPlatformRequestSchema,
        response: {
          200: PlatformSwitchesAnswerSchema,
          ...refusals({ ...ADMIN_ONLY, 400: `${BAD_INPUT} Or a platform other than macos, windows, linux.` }, withBody),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await releases.setPlatform(request.params.platform, request.body.open, actorOf(request)),
    }),
  );

  // ── Desktop app ────────────────────────────────────────────────────────────────────────────────────────────

  /** The license a key names with this machine holding a slot, or the licensing code's problem. */
  async function licensedMachine(licenseKey: string, machineId: string): Promise<LicenseRow> {
    const state = await deps.licensing.resolve(normalizeLicenseKey(licenseKey));
    if (!state) throw new HttpProblem(404, LICENSE_CODE_MESSAGES.NOT_FOUND, "NOT_FOUND");
    releases.assertMayDownload(state.license);
    if (!state.machines.has(machineId.trim())) {
      throw new HttpProblem(403, LICENSE_CODE_MESSAGES.NOT_ACTIVATED, "NOT_ACTIVATED");
    }
    return state.license;
  }

  api.post(
    "/api/license/updates/check",
    {
      config: desktopLimit,
      onSend: signAnswers(deps.signer),
      compress: false as const,
      schema: {
        tags,
        summary: "Is there a newer build this license may have? (signed answer)",
        description:
          "For an activated machine of a license in force: the newest published release on an allowed channel (stable for everyone; beta for admitted testers who ask for it) with an artifact for the platform and arch (or universal), strictly newer than `current_version` — never a downgrade — with its checksums, both signatures and a download link valid 5 minutes. `update: null` when there is none, or when downloads for the platform are closed. Signed like validate (`Flotilla-Signature`).",
        body: UpdateCheckRequestSchema,
        response: {
          200: UpdateCheckAnswerSchema,
          ...refusals(
            {
              400: "VALIDATION_ERROR: a field is missing or invalid (the error names it); MALFORMED_JSON: the body is not JSON.",
              403: "SUSPENDED or EXPIRED: the license is not in force; NOT_ACTIVATED: this machine holds no slot of it (validate first).",
              404: "NOT_FOUND: no license has this key.",
              429: FEED[429],
            },
            withBody,
          ),
        },
      },
    },
    async (request) => {
      const input = request.body;
      const license = await licensedMachine(input.license_key, input.machine_id);
      const open = await releases.openPlatforms();
      if (!open.has(input.platform)) return { success: true as const, data: { update: null } };
      const offer = await releases.offer({
        license,
        platform: input.platform,
        arch: input.arch,
        channel: input.channel,
        newerThan: input.current_version,
      });
      const artifact = offer?.artifacts[0];
      if (!offer || !artifact) return { success: true as const, data: { update: null } };
      const { upload_state: _state, created_at: _created, ...metadata } = artifactJson(artifact);
      return {
        success: true as const,
        data: {
          update: {
            release_id: offer.release.id,
            version: offer.release.version,
            channel: offer.release.channel as z.infer<typeof ReleaseChannelSchema>,
            notes: offer.release.notes,
            published_at: (offer.release.publishedAt ?? offer.release.createdAt).toISOString(),
            artifact: metadata,
            download: releases.link(artifact.id, license.id),
          },
        },
      };
    },
  );

  /** The feeds' credentials: `Authorization: License <key>` and the machine header. Never in the URL (0059). */
  async function feedLicense(request: FastifyRequest): Promise<LicenseRow> {
    const header = request.headers.authorization;
    const match =
      typeof header === "string" ? new RegExp(`^${FEED_AUTH_SCHEME}\\s+(\\S+)\\s*$`, "i").exec(header) : null;
    const machine = request.headers[MACHINE_ID_HEADER];
    if (!match?.[1] || typeof machine !== "string" || machine.length === 0 || machine.length > 128) {
      throw new HttpProblem(401, "Send Authorization: License <key> and Flotilla-Machine-Id.", "UNAUTHENTICATED");
    }
    if (match[1].length > 64) throw new HttpProblem(404, LICENSE_CODE_MESSAGES.NOT_FOUND, "NOT_FOUND");
    return licensedMachine(match[1], machine);
  }

  api.get(
    "/api/license/updates/sparkle/appcast.xml",
    {
      config: desktopLimit,
      schema: {
        tags,
        security: licenseAuth,
        summary: "Sparkle appcast (RSS) of the builds this license may have on macOS",
        description:
          "Items newest first, each with `sparkle:version` and `sparkle:shortVersionString` (the semantic version), `sparkle:channel` for beta builds, the release notes, and an enclosure (`length`, `sparkle:edSignature`) whose URL is this feed's download endpoint: Sparkle sends the same headers there, and is redirected to a fresh link. Empty while macOS downloads are closed.",
        querystring: FeedQuery,
        response: {
          200: z.string().describe("application/rss+xml"),
          ...refusals(FEED),
        },
      },
    },
    async (request, reply) => {
      const license = await feedLicense(request);
      const open = await releases.openPlatforms();
      const offers = open.has("macos")
        ? await releases.offers(
            { license, platform: "macos", arch: request.query.arch ?? null, channel: request.query.channel },
            10,
          )
        : [];
      reply.type("application/rss+xml; charset=utf-8").header("cache-control", "private, no-store");
      return appcast(config.publicOrigin, offers);
    },
  );

  api.get(
    "/api/license/updates/tauri/:target/:arch/:currentVersion",
    {
      config: desktopLimit,
      schema: {
        tags,
        security: licenseAuth,
        summary: "Tauri's update JSON: the newest build newer than the running one, or 204",
        description:
          "The endpoint Tauri's updater fills in (`{{target}}/{{arch}}/{{current_version}}`, `?channel=beta` for testers). `signature` is the base64 minisign signature file Tauri verifies with its `pubkey`; `url` is this feed's download endpoint (Tauri sends the same headers there, and follows the redirect). 204 when there is no newer build or downloads for the platform are closed.",
        params: TauriParams,
        querystring: z.object({ channel: ReleaseChannelSchema.default("stable") }),
        response: {
          200: TauriUpdateSchema,
          204: z.null().describe("No update."),
          ...refusals(FEED),
        },
      },
    },
    async (request, reply) => {
      const platform = TAURI_TARGETS[request.params.target.toLowerCase()];
      const version = SemverSchema.safeParse(request.params.currentVersion.replace(/^v/, ""));
      const arch =
        request.params.arch === "universal" || request.params.arch === "aarch64" || request.params.arch === "x86_64"
          ? request.params.arch
          : null;
      if (!platform || !version.success || !arch) {
        throw new HttpProblem(
          400,
          "target must be darwin, linux or windows; arch x86_64 or aarch64; the version semver.",
          "VALIDATION_ERROR",
        );
      }
      const license = await feedLicense(request);
      const open = await releases.openPlatforms();
      const offer = open.has(platform)
        ? await releases.offer({ license, platform, arch, channel: request.query.channel, newerThan: version.data })
        : null;
      const artifact = offer?.artifacts[0];
      if (!offer || !artifact) return reply.code(204).send(null);
      return {
        version: offer.release.version,
        notes: offer.release.notes,
        pub_date: (offer.release.publishedAt ?? offer.release.createdAt).toISOString(),
        url: `${config.publicOrigin}/api/license/updates/artifacts/${artifact.id}/download`,
        signature: artifact.minisignSignature,
      };
    },
  );

  api.get(
    "/api/license/updates/artifacts/:artifactId/download",
    {
      config: desktopLimit,
      schema: {
        tags,
        security: licenseAuth,
        summary: "The feeds' download: a 302 to a fresh download link (valid 5 minutes)",
        params: ArtifactParams,
        response: { 302: z.null().describe("Location: the download link."), ...refusals(FEED) },
      },
    },
    async (request, reply) => {
      const license = await feedLicense(request);
      const artifact = await releases.feedArtifact(license, request.params.artifactId);
      return reply
        .code(302)
        .header("cache-control", "no-store")
        .redirect(releases.link(artifact.id, license.id).url, 302);
    },
  );

  // ── Customer (portal) ──────────────────────────────────────────────────────────────────────────────────────

  api.get(
    "/api/customer/downloads",
    {
      preValidation: session,
      config: perMinute,
      schema: {
        tags: ["Customer"],
        security: bearer,
        summary: "Per platform: whether downloads are open, and the newest build your license may have, with links",
        description:
          "Links are valid 5 minutes (ask again for fresh ones). Beta builds appear for admitted testers. Nothing is offered for a closed platform, nor to a license that is suspended or expired (`license_key` is then null).",
        response: {
          200: CustomerDownloadsAnswerSchema,
          ...refusals({
            401: "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended.",
            429: OPERATOR[429],
          }),
        },
      },
    },
    async (request) => {
      const { customer } = sessionOf(request);
      const [row] = await licensesOfCustomer(deps.db, customer.id);
      const license = row?.license;
      const open = await releases.openPlatforms();
      let inForce = license ?? null;
      if (inForce) {
        try {
          releases.assertMayDownload(inForce);
        } catch {
          inForce = null;
        }
      }
      const platforms = [];
      for (const platform of RELEASE_PLATFORMS) {
        const offer =
          inForce && open.has(platform)
            ? await releases.offer({ license: inForce, platform, arch: null, channel: "beta", newerThan: null })
            : null;
        const licenseId = inForce?.id ?? "";
        platforms.push({
          platform,
          open: open.has(platform),
          release: offer
            ? {
                id: offer.release.id,
                version: offer.release.version,
                channel: offer.release.channel as z.infer<typeof ReleaseChannelSchema>,
                published_at: (offer.release.publishedAt ?? offer.release.createdAt).toISOString(),
              }
            : null,
          artifacts: (offer?.artifacts ?? []).map((artifact) => ({
            id: artifact.id,
            arch: artifact.arch as "x86_64" | "aarch64" | "universal",
            filename: artifact.filename,
            size: artifact.size,
            sha256: artifact.sha256,
            download: releases.link(artifact.id, licenseId),
          })),
        });
      }
      return { success: true as const, data: { license_key: inForce?.licenseKey ?? null, platforms } };
    },
  );

  // ── Anyone ─────────────────────────────────────────────────────────────────────────────────────────────────

  api.get(
    "/api/downloads/:token",
    {
      config: perMinute,
      compress: false as const,
      schema: {
        tags,
        summary: "A download link: the file (folder storage, Range supported) or a 302 to a presigned URL (S3)",
        description:
          "Links come from the update check, the feeds and the portal, and expire after 5 minutes; one started from its first byte counts as a download of its release and platform (a resumed Range does not count again). A yanked release's links stop working.",
        params: DownloadParams,
        response: {
          200: z.any().describe("The artifact's bytes (application/octet-stream)."),
          206: z.any().describe("The bytes of the Range asked for."),
          302: z.null().describe("Location: a presigned URL of the object storage, valid 5 minutes."),
          ...refusals({
            400: "VALIDATION_ERROR: the link is too long.",
            410: "LINK_EXPIRED: the link is invalid, expired, or its release was yanked; ask for a new one.",
            416: "RANGE_NOT_SATISFIABLE: the Range is past the end of the file.",
            429: OPERATOR[429],
          }),
        },
      },
    },
    async (request, reply) => {
      const range = parseRange(request.headers.range);
      // A HEAD (a download manager probing the size) is not a download.
      const starts = request.method === "GET" && (!range || range.start === 0);
      const { artifact } = await releases.redeem(request.params.token, starts);
      const storage = releases.storage;
      if (storage instanceof S3Storage) {
        const url = await storage.downloadUrl(artifact.storageKey, artifact.filename, 300);
        return reply.code(302).header("cache-control", "no-store").redirect(url, 302);
      }
      if (!(storage instanceof FolderStorage)) throw new Error("unknown storage");
      const path = storage.pathOf(artifact.storageKey);
      const { size } = await stat(path);
      reply
        .header("content-type", "application/octet-stream")
        .header("content-disposition", `attachment; filename="${artifact.filename}"`)
        .header("accept-ranges", "bytes")
        .header("cache-control", "private, no-store")
        .header("etag", `"${artifact.sha256}"`)
        .header("x-checksum-sha256", artifact.sha256);
      if (range) {
        const end = Math.min(range.end ?? size - 1, size - 1);
        if (range.start >= size || range.start > end) {
          reply.removeHeader("content-disposition");
          return reply
            .code(416)
            .header("content-type", "application/json; charset=utf-8")
            .header("content-range", `bytes */${size}`)
            .send({ success: false, error: "The Range is past the end of the file.", code: "RANGE_NOT_SATISFIABLE" });
        }
        reply
          .code(206)
          .header("content-range", `bytes ${range.start}-${end}/${size}`)
          .header("content-length", String(end - range.start + 1));
        return reply.send(createReadStream(path, { start: range.start, end }));
      }
      reply.code(200).header("content-length", String(size));
      return reply.send(createReadStream(path));
    },
  );

  api.get(
    "/api/releases/notes",
    {
      config: perMinute,
      schema: {
        tags,
        summary: "Published releases' notes, newest first (the release-notes page)",
        querystring: ReleaseNotesQuerySchema,
        response: {
          200: ReleaseNotesAnswerSchema,
          ...refusals({ 400: "VALIDATION_ERROR: a bad channel or limit.", 429: OPERATOR[429] }),
        },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "public, max-age=60");
      return { success: true as const, data: await releases.notes(request.query) };
    },
  );

  api.get(
    "/api/downloads/platforms",
    {
      config: perMinute,
      schema: {
        tags,
        summary: "Which platforms' downloads are open (the home page's cards)",
        response: { 200: PublicPlatformsAnswerSchema, ...refusals({ 429: OPERATOR[429] }) },
      },
    },
    async (_request, reply) => {
      reply.header("cache-control", "public, max-age=30");
      const open = await releases.openPlatforms();
      return {
        success: true as const,
        data: RELEASE_PLATFORMS.map((platform) => ({ platform, open: open.has(platform) })),
      };
    },
  );
}

/** `bytes=start-` or `bytes=start-end` (one range; anything else is ignored and the whole file sent). */
export function parseRange(header: string | undefined): { start: number; end: number | null } | null {
  if (!header) return null;
  const match = /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header.trim());
  if (!match) return null;
  return { start: Number(match[1]), end: match[2] ? Number(match[2]) : null };
}
