/**
 * Distribution (issue 36, decisions 0059–0061): releases, their signed artifacts, who may download what, and the
 * feeds real updaters read. Shared by the API, the SDK/CLI (`flotilla-license update …`, `release publish`), the
 * console's Releases tab, the portal's Download button and the public pages. Wire fields are snake_case, answers
 * are `{ success: true, data }`, as in the rest of the API. This file only grows (the client builds on it).
 *
 * Endpoints (paths as constants in RELEASE_PATHS below):
 *
 * Operator: `Authorization: Bearer flt_op_…` (an operator token with scope `releases:write`) or an admin session.
 *   POST   /api/admin/releases                                   create a draft release            → ReleaseAnswer
 *   GET    /api/admin/releases                                   releases + download counts         → ReleaseListAnswer
 *   GET    /api/admin/releases/:releaseId                        one release                        → ReleaseAnswer
 *   POST   /api/admin/releases/:releaseId/artifacts              add an artifact, get its upload    → ArtifactUploadAnswer
 *   DELETE /api/admin/releases/:releaseId/artifacts/:artifactId  a draft's artifact, and its bytes  → ReleaseAnswer
 *   GET    /api/admin/uploads/:uploadId                          where an upload stands (resume)    → UploadStatusAnswer
 *   HEAD   /api/admin/uploads/:uploadId                          folder storage: `Upload-Offset` header (tus-like)
 *   PATCH  /api/admin/uploads/:uploadId                          folder storage: bytes at `Upload-Offset`
 *                                                                (Content-Type application/offset+octet-stream) → 204 + Upload-Offset
 *   POST   /api/admin/uploads/:uploadId/parts                    S3: presigned PUT URLs for parts   → UploadPartsAnswer
 *   POST   /api/admin/uploads/:uploadId/complete                 verify size, sha256, sha512 and both signatures → ArtifactAnswer
 *   POST   /api/admin/releases/:releaseId/publish                draft → published                  → ReleaseAnswer
 *   POST   /api/admin/releases/:releaseId/yank                   published → yanked                 → ReleaseAnswer
 *   POST   /api/admin/releases/:releaseId/promote                change channel (beta → stable …)   → ReleaseAnswer
 * Admin session only (the console):
 *   GET    /api/admin/operator-tokens                            tokens (never their secret)        → OperatorTokenListAnswer
 *   POST   /api/admin/operator-tokens                            create; the secret is shown once   → OperatorTokenCreatedAnswer
 *   DELETE /api/admin/operator-tokens/:tokenId                   revoke                             → OperatorTokenAnswer
 *   GET    /api/admin/downloads/platforms                        the download switch per platform  → PlatformSwitchesAnswer
 *   PUT    /api/admin/downloads/platforms/:platform              open or close a platform (audited) → PlatformSwitchesAnswer
 *
 * Desktop app: license key + machine id, like /api/license/validate; answers signed (Flotilla-Signature).
 *   POST   /api/license/updates/check                            UpdateCheckRequest                 → UpdateCheckAnswer
 * Updater feeds: `Authorization: License <key>` + `Flotilla-Machine-Id: <id>` headers (decision 0059).
 *   GET    /api/license/updates/sparkle/appcast.xml?arch=&channel=   Sparkle appcast (RSS)
 *   GET    /api/license/updates/tauri/:target/:arch/:currentVersion?channel=   Tauri update JSON, 204 when none
 *   GET    /api/license/updates/artifacts/:artifactId/download   the feeds' enclosure: 302 to a fresh download link
 *
 * Customer (portal session):
 *   GET    /api/customer/downloads                               per open platform: newest allowed build + links
 *
 * Anyone:
 *   GET    /api/downloads/:token                                 a signed, expiring download link (5 min): folder
 *                                                                storage streams (Range supported), S3 redirects 302
 *                                                                to a presigned GET. Counted here (decision 0059).
 *   GET    /api/releases/notes                                   published releases' notes          → ReleaseNotesAnswer
 *   GET    /api/downloads/platforms                              which platforms are open           → PublicPlatformsAnswer
 */
import { z } from "zod";
import { LicenseKeySchema, MachineIdSchema } from "./licensing";
import { isSafeDisplayText, UNSAFE_TEXT_MESSAGE } from "./text";

export const RELEASE_PATHS = {
  adminReleases: "/api/admin/releases",
  adminRelease: "/api/admin/releases/:releaseId",
  adminArtifacts: "/api/admin/releases/:releaseId/artifacts",
  adminArtifact: "/api/admin/releases/:releaseId/artifacts/:artifactId",
  adminUpload: "/api/admin/uploads/:uploadId",
  adminUploadParts: "/api/admin/uploads/:uploadId/parts",
  adminUploadComplete: "/api/admin/uploads/:uploadId/complete",
  adminPublish: "/api/admin/releases/:releaseId/publish",
  adminYank: "/api/admin/releases/:releaseId/yank",
  adminPromote: "/api/admin/releases/:releaseId/promote",
  adminOperatorTokens: "/api/admin/operator-tokens",
  adminOperatorToken: "/api/admin/operator-tokens/:tokenId",
  adminPlatforms: "/api/admin/downloads/platforms",
  adminPlatform: "/api/admin/downloads/platforms/:platform",
  updateCheck: "/api/license/updates/check",
  sparkleAppcast: "/api/license/updates/sparkle/appcast.xml",
  tauriUpdate: "/api/license/updates/tauri/:target/:arch/:currentVersion",
  feedDownload: "/api/license/updates/artifacts/:artifactId/download",
  customerDownloads: "/api/customer/downloads",
  download: "/api/downloads/:token",
  releaseNotes: "/api/releases/notes",
  publicPlatforms: "/api/downloads/platforms",
} as const;

/** Fills a path's `:params` (encoded). */
export function releasePath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`releasePath: missing ${name}`);
    return encodeURIComponent(value);
  });
}

/** Headers of the updater feeds (Keygen's `License` scheme plus the machine). */
export const FEED_AUTH_SCHEME = "License";
export const MACHINE_ID_HEADER = "flotilla-machine-id";
/** The operator token's visible prefix (the rest is random; only its SHA-256 is stored). */
export const OPERATOR_TOKEN_PREFIX = "flt_op_";
/** Download links and presigned URLs live this long. */
export const DOWNLOAD_LINK_TTL_SECONDS = 300;
/** tus-like folder uploads: the headers carrying the offset and the protocol version. */
export const UPLOAD_OFFSET_HEADER = "upload-offset";
export const UPLOAD_CONTENT_TYPE = "application/offset+octet-stream";
/** Largest artifact accepted (bytes); S3 parts are at least 5 MiB except the last (S3's rule). */
export const MAX_ARTIFACT_BYTES = 4 * 1024 ** 3;
export const MIN_PART_BYTES = 5 * 1024 * 1024;

export const RELEASE_CHANNELS = ["stable", "rc", "beta", "alpha", "dev"] as const;
export type ReleaseChannel = (typeof RELEASE_CHANNELS)[number];
export const ReleaseChannelSchema = z.enum(RELEASE_CHANNELS);
export const RELEASE_STATES = ["draft", "published", "yanked"] as const;
export type ReleaseState = (typeof RELEASE_STATES)[number];
export const RELEASE_PLATFORMS = ["macos", "windows", "linux"] as const;
export type ReleasePlatform = (typeof RELEASE_PLATFORMS)[number];
export const ReleasePlatformSchema = z.enum(RELEASE_PLATFORMS);
export const RELEASE_ARCHES = ["x86_64", "aarch64", "universal"] as const;
export type ReleaseArch = (typeof RELEASE_ARCHES)[number];
export const ReleaseArchSchema = z.enum(RELEASE_ARCHES);
export const UPLOAD_STATES = ["pending", "complete"] as const;
/** License features a release may require (TierFeatures' boolean flags, tiers.ts). */
export const RELEASE_FEATURES = ["sharedMemory", "backups", "embeddingModels"] as const;
export type ReleaseFeature = (typeof RELEASE_FEATURES)[number];
export const OPERATOR_SCOPES = ["releases:write"] as const;
export type OperatorScope = (typeof OPERATOR_SCOPES)[number];

/** Semantic Versioning 2.0.0's own regular expression (semver.org), no leading "v". */
export const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
export const SemverSchema = z
  .string()
  .trim()
  .max(64, "version is too long")
  .regex(SEMVER_PATTERN, "version must be a semantic version, like 1.4.0 or 2.0.0-beta.3");

const HEX = (bytes: number) => new RegExp(`^[0-9a-f]{${bytes * 2}}$`);
export const Sha256Schema = z.string().trim().toLowerCase().regex(HEX(32), "sha256 must be 64 hex digits");
export const Sha512Schema = z.string().trim().toLowerCase().regex(HEX(64), "sha512 must be 128 hex digits");
/** Base64 of a 64-byte Ed25519 signature over the file's bytes (Sparkle's sparkle:edSignature). */
export const EdSignatureSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9+/]{86}==$/, "signature must be a base64 Ed25519 signature (88 characters)");
/** Base64 of a minisign signature file's text (what Tauri's updater reads in `signature`). */
export const MinisignSignatureSchema = z
  .string()
  .trim()
  .min(100, "minisign_signature is too short")
  .max(2048, "minisign_signature is too long")
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, "minisign_signature must be base64 of the .sig file");
/** A file name as a download saves it: no path, no control characters. */
export const ArtifactFilenameSchema = z
  .string()
  .trim()
  .min(1, "filename is required")
  .max(200, "filename is too long")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, "filename may hold letters, digits and . _ + - only");
const Id = z.string().min(1).max(64);
const Iso = z.string();

export const ArtifactSchema = z.object({
  id: Id,
  release_id: Id,
  platform: ReleasePlatformSchema,
  arch: ReleaseArchSchema,
  filename: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  sha512: z.string(),
  signature: z.string(),
  minisign_signature: z.string(),
  upload_state: z.enum(UPLOAD_STATES),
  created_at: Iso,
});
export type Artifact = z.infer<typeof ArtifactSchema>;

export const ReleaseSchema = z.object({
  id: Id,
  version: z.string(),
  channel: ReleaseChannelSchema,
  state: z.enum(RELEASE_STATES),
  notes: z.string(),
  requires_feature: z.enum(RELEASE_FEATURES).nullable(),
  created_at: Iso,
  published_at: Iso.nullable(),
  yanked_at: Iso.nullable(),
  artifacts: z.array(ArtifactSchema),
});
export type Release = z.infer<typeof ReleaseSchema>;

const notesText = z.string().max(50_000, "notes are too long (50,000 characters at most)");

export const CreateReleaseRequestSchema = z.strictObject({
  version: SemverSchema,
  channel: ReleaseChannelSchema,
  notes: notesText.default(""),
  requires_feature: z.enum(RELEASE_FEATURES).nullable().optional(),
});
export type CreateReleaseRequest = z.input<typeof CreateReleaseRequestSchema>;

export const AddArtifactRequestSchema = z.strictObject({
  platform: ReleasePlatformSchema,
  arch: ReleaseArchSchema,
  filename: ArtifactFilenameSchema,
  size: z.number().int().min(1).max(MAX_ARTIFACT_BYTES),
  sha256: Sha256Schema,
  sha512: Sha512Schema,
  signature: EdSignatureSchema,
  minisign_signature: MinisignSignatureSchema,
});
export type AddArtifactRequest = z.input<typeof AddArtifactRequestSchema>;

/** Where the bytes go: the folder's tus-like endpoint, or S3 multipart with presigned part URLs. */
export const UploadTargetSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("folder"),
    upload_id: Id,
    /** Absolute URL of the HEAD/PATCH endpoint. */
    url: z.string(),
    offset: z.number().int(),
    size: z.number().int(),
  }),
  z.object({
    kind: z.literal("s3-multipart"),
    upload_id: Id,
    part_size: z.number().int(),
    part_count: z.number().int(),
    size: z.number().int(),
  }),
]);
export type UploadTarget = z.infer<typeof UploadTargetSchema>;

export const ArtifactUploadAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({ artifact: ArtifactSchema, upload: UploadTargetSchema }),
});

/** Where an upload stands, so an interrupted one resumes: the folder's offset, or the S3 parts already stored. */
export const UploadStatusSchema = z.object({
  upload_id: Id,
  artifact_id: Id,
  kind: z.enum(["folder", "s3-multipart"]),
  size: z.number().int(),
  offset: z.number().int(),
  part_size: z.number().int().nullable(),
  parts: z.array(z.object({ part_number: z.number().int(), etag: z.string(), size: z.number().int() })),
  state: z.enum(UPLOAD_STATES),
});
export const UploadStatusAnswerSchema = z.object({ success: z.literal(true), data: UploadStatusSchema });

export const UploadPartsRequestSchema = z.strictObject({
  part_numbers: z.array(z.number().int().min(1).max(10_000)).min(1).max(100),
});
export const UploadPartsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    parts: z.array(z.object({ part_number: z.number().int(), url: z.string(), expires_at: Iso })),
  }),
});

/** S3: the ETag S3 answered for every part (the folder ignores `parts`). */
export const CompleteUploadRequestSchema = z.strictObject({
  parts: z
    .array(z.strictObject({ part_number: z.number().int().min(1).max(10_000), etag: z.string().min(1).max(200) }))
    .max(10_000)
    .optional(),
});
export const ArtifactAnswerSchema = z.object({ success: z.literal(true), data: ArtifactSchema });
export const ReleaseAnswerSchema = z.object({ success: z.literal(true), data: ReleaseSchema });

const reason = z.string().trim().max(500).refine(isSafeDisplayText, `reason ${UNSAFE_TEXT_MESSAGE}`).optional();
export const YankRequestSchema = z.strictObject({ reason });
export const PromoteRequestSchema = z.strictObject({ channel: ReleaseChannelSchema });

export const DownloadCountsSchema = z.object({
  total: z.number().int(),
  by_platform: z.object({ macos: z.number().int(), windows: z.number().int(), linux: z.number().int() }),
});
export const ReleaseListItemSchema = ReleaseSchema.extend({ downloads: DownloadCountsSchema });
export const ReleaseListQuerySchema = z.object({
  channel: ReleaseChannelSchema.optional(),
  state: z.enum(RELEASE_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export const ReleaseListAnswerSchema = z.object({ success: z.literal(true), data: z.array(ReleaseListItemSchema) });

export const OperatorTokenSchema = z.object({
  id: Id,
  name: z.string(),
  scopes: z.array(z.enum(OPERATOR_SCOPES)),
  /** The first characters after the prefix, to tell tokens apart (never enough to use one). */
  hint: z.string(),
  created_at: Iso,
  created_by: z.string().nullable(),
  last_used_at: Iso.nullable(),
  revoked_at: Iso.nullable(),
});
export const CreateOperatorTokenRequestSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, "name is required")
    .max(80, "name is too long")
    .refine(isSafeDisplayText, `name ${UNSAFE_TEXT_MESSAGE}`),
  scopes: z.array(z.enum(OPERATOR_SCOPES)).min(1).default(["releases:write"]),
});
export const OperatorTokenAnswerSchema = z.object({ success: z.literal(true), data: OperatorTokenSchema });
export const OperatorTokenListAnswerSchema = z.object({ success: z.literal(true), data: z.array(OperatorTokenSchema) });
/** `token` is shown this once; the service keeps only its SHA-256. */
export const OperatorTokenCreatedAnswerSchema = z.object({
  success: z.literal(true),
  data: OperatorTokenSchema.extend({ token: z.string() }),
});

export const PlatformSwitchSchema = z.object({
  platform: ReleasePlatformSchema,
  open: z.boolean(),
  changed_at: Iso.nullable(),
  changed_by: z.string().nullable(),
});
export const PlatformSwitchesAnswerSchema = z.object({ success: z.literal(true), data: z.array(PlatformSwitchSchema) });
export const SetPlatformRequestSchema = z.strictObject({ open: z.boolean() });
export const PublicPlatformsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.array(z.object({ platform: ReleasePlatformSchema, open: z.boolean() })),
});

/** The desktop app asks for an update (signed answer, like validate). */
export const UpdateCheckRequestSchema = z.strictObject({
  license_key: LicenseKeySchema,
  machine_id: MachineIdSchema,
  current_version: SemverSchema,
  platform: ReleasePlatformSchema,
  arch: ReleaseArchSchema,
  channel: ReleaseChannelSchema.default("stable"),
});
export type UpdateCheckRequest = z.input<typeof UpdateCheckRequestSchema>;

export const DownloadLinkSchema = z.object({ url: z.string(), expires_at: Iso });
export const UpdateSchema = z.object({
  release_id: Id,
  version: z.string(),
  channel: ReleaseChannelSchema,
  notes: z.string(),
  published_at: Iso,
  artifact: ArtifactSchema.omit({ upload_state: true, created_at: true }),
  download: DownloadLinkSchema,
});
export type Update = z.infer<typeof UpdateSchema>;
export const UpdateCheckAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({ update: UpdateSchema.nullable() }),
});

/** Tauri's update JSON (dynamic server form): `signature` is the base64 minisign .sig text. */
export const TauriUpdateSchema = z.object({
  version: z.string(),
  notes: z.string(),
  pub_date: z.string(),
  url: z.string(),
  signature: z.string(),
});

/** The portal: per platform, the newest build this customer may download (links live DOWNLOAD_LINK_TTL_SECONDS). */
export const CustomerDownloadSchema = z.object({
  platform: ReleasePlatformSchema,
  open: z.boolean(),
  release: z.object({ id: Id, version: z.string(), channel: ReleaseChannelSchema, published_at: Iso }).nullable(),
  artifacts: z.array(
    z.object({
      id: Id,
      arch: ReleaseArchSchema,
      filename: z.string(),
      size: z.number().int(),
      sha256: z.string(),
      download: DownloadLinkSchema,
    }),
  ),
});
export const CustomerDownloadsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    /** The license the downloads follow; null when the customer has no license in force. */
    license_key: z.string().nullable(),
    platforms: z.array(CustomerDownloadSchema),
  }),
});

export const ReleaseNotesQuerySchema = z.object({
  channel: ReleaseChannelSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export const ReleaseNoteSchema = z.object({
  version: z.string(),
  channel: ReleaseChannelSchema,
  published_at: Iso,
  notes: z.string(),
  platforms: z.array(ReleasePlatformSchema),
});
export const ReleaseNotesAnswerSchema = z.object({ success: z.literal(true), data: z.array(ReleaseNoteSchema) });

export const RELEASE_ERRORS = {
  notFound: "No release with this id.",
  artifactNotFound: "No artifact with this id.",
  uploadNotFound: "No upload with this id.",
  versionTaken: "A release with this version already exists.",
  notDraft: "Only a draft release can take artifacts or be published.",
  notPublished: "Only a published release can be yanked or promoted.",
  noArtifacts: "A release needs at least one complete artifact before it is published.",
  artifactTaken: "This release already has an artifact for this platform and architecture.",
  uploadIncomplete: "The upload has not received every byte yet.",
  sizeMismatch: "The uploaded file's size is not the size declared.",
  checksumMismatch: "The uploaded file's SHA-256 or SHA-512 is not the one declared.",
  signatureInvalid: "The artifact's Ed25519 signature does not verify with any configured release public key.",
  minisignInvalid: "The artifact's minisign signature does not verify with any configured release public key.",
  offsetMismatch: "Upload-Offset is not where the upload stands; HEAD it and resume from there.",
  wrongStorage: "This upload does not use this storage's protocol.",
  tokenInvalid: "The operator token is invalid or revoked.",
  scopeMissing: "The operator token lacks the releases:write scope.",
  linkExpired: "This download link has expired or is invalid; ask for a new one.",
  platformClosed: "Downloads for this platform are not open yet.",
  notEntitled: "This license may not download this release.",
  promoteSameChannel: "The release is already on this channel.",
} as const;
