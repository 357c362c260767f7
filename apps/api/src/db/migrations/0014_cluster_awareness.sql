-- Decision 0049 (later): a session that ends while live streams hold it — revoked (sign-out, sign-out everywhere, an
-- admin's, a token rotated) or deleted while live (a person's erasure) — is announced on the license change channel
-- (db/change-feed.ts, license-invalidation.ts) by the database itself, when its transaction commits: whichever code
-- path or process ended it, and with no window between the commit and the message. Sender "db"; the payload names the
-- session only. A session deleted after it ended (retention) says nothing.
CREATE OR REPLACE FUNCTION "sessions_announce_end"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('flotilla:license-changed', 'db signed-out ' || OLD."id"::text);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "sessions_revoked_announce" AFTER UPDATE OF "revoked_at" ON "sessions" FOR EACH ROW
  WHEN (OLD."revoked_at" IS NULL AND NEW."revoked_at" IS NOT NULL)
  EXECUTE FUNCTION "sessions_announce_end"();
--> statement-breakpoint
CREATE TRIGGER "sessions_deleted_announce" AFTER DELETE ON "sessions" FOR EACH ROW
  WHEN (OLD."revoked_at" IS NULL AND OLD."expires_at" > now() AND OLD."absolute_expires_at" > now())
  EXECUTE FUNCTION "sessions_announce_end"();
--> statement-breakpoint
-- Decision 0016 (later): the instances alive, so that while Redis is out each counts alone at its share of a limit.
-- Each instance writes its row every few seconds (db/instances.ts) and deletes it when it stops; rows a crashed
-- instance left are deleted by the others after a minute.
CREATE TABLE "service_instances" (
  "id" uuid PRIMARY KEY NOT NULL,
  "name" text NOT NULL,
  "seen_at" timestamp with time zone NOT NULL
);
