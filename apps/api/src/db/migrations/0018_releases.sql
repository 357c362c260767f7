-- Distribution (issue 36, decisions 0059-0061): releases with a semver version, a channel and a state; their
-- artifacts (one per platform and architecture, with both signatures and checksums, complete once the server has
-- verified the stored bytes); resumable uploads; operator tokens (only their SHA-256); download counts per release
-- and platform; and the download switch per platform (closed until an admin opens it).
CREATE TABLE "releases" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "version" text NOT NULL,
  "channel" text NOT NULL,
  "state" text DEFAULT 'draft' NOT NULL,
  "notes" text DEFAULT '' NOT NULL,
  "requires_feature" text,
  "created_by" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  "published_at" timestamp with time zone,
  "yanked_at" timestamp with time zone,
  "yank_reason" text,
  CONSTRAINT "releases_channel_known" CHECK ("channel" IN ('stable', 'rc', 'beta', 'alpha', 'dev')),
  CONSTRAINT "releases_state_known" CHECK ("state" IN ('draft', 'published', 'yanked'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "releases_version_key" ON "releases" ("version");
--> statement-breakpoint
CREATE INDEX "releases_published_idx" ON "releases" ("state", "channel", "published_at");
--> statement-breakpoint
CREATE TABLE "release_artifacts" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "release_id" uuid NOT NULL REFERENCES "releases"("id") ON DELETE CASCADE,
  "platform" text NOT NULL,
  "arch" text NOT NULL,
  "filename" text NOT NULL,
  "size" bigint NOT NULL,
  "sha256" text NOT NULL,
  "sha512" text NOT NULL,
  "signature" text NOT NULL,
  "minisign_signature" text NOT NULL,
  "storage_key" text NOT NULL,
  "upload_state" text DEFAULT 'pending' NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "completed_at" timestamp with time zone,
  CONSTRAINT "release_artifacts_platform_known" CHECK ("platform" IN ('macos', 'windows', 'linux')),
  CONSTRAINT "release_artifacts_arch_known" CHECK ("arch" IN ('x86_64', 'aarch64', 'universal')),
  CONSTRAINT "release_artifacts_upload_state_known" CHECK ("upload_state" IN ('pending', 'complete'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "release_artifacts_target_key" ON "release_artifacts" ("release_id", "platform", "arch");
--> statement-breakpoint
CREATE TABLE "release_uploads" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "artifact_id" uuid NOT NULL REFERENCES "release_artifacts"("id") ON DELETE CASCADE,
  "kind" text NOT NULL,
  "s3_upload_id" text,
  "part_size" integer,
  "received" bigint DEFAULT 0 NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "completed_at" timestamp with time zone,
  CONSTRAINT "release_uploads_kind_known" CHECK ("kind" IN ('folder', 's3-multipart'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "release_uploads_artifact_key" ON "release_uploads" ("artifact_id");
--> statement-breakpoint
CREATE TABLE "operator_tokens" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "name" text NOT NULL,
  "token_hash" text NOT NULL,
  "hint" text NOT NULL,
  "scopes" jsonb NOT NULL,
  "created_by" text,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_used_at" timestamp with time zone,
  "revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "operator_tokens_token_hash_key" ON "operator_tokens" ("token_hash");
--> statement-breakpoint
CREATE TABLE "release_download_counts" (
  "release_id" uuid NOT NULL REFERENCES "releases"("id") ON DELETE CASCADE,
  "platform" text NOT NULL,
  "count" bigint DEFAULT 0 NOT NULL,
  CONSTRAINT "release_download_counts_pkey" PRIMARY KEY ("release_id", "platform")
);
--> statement-breakpoint
CREATE TABLE "download_platforms" (
  "platform" text PRIMARY KEY NOT NULL,
  "open" boolean DEFAULT false NOT NULL,
  "changed_at" timestamp with time zone,
  "changed_by" text,
  CONSTRAINT "download_platforms_platform_known" CHECK ("platform" IN ('macos', 'windows', 'linux'))
);
