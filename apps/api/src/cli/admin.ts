/**
 * Admin CLI for the people running the beta:
 *   npm run admin -- signups export --format csv|json
 *   npm run admin -- subscribers export --format csv|json   (includes each subscriber's unsubscribe link)
 *   npm run admin -- license suspend|reactivate|expire <license-key> [--reason TEXT]
 *   npm run admin -- admin grant|revoke <email>   (the admin role; recorded in the audit log)
 *   npm run admin -- keys public     (the JWKS to pin into an SDK build: FLOTILLA_TRUSTED_KEYS)
 *   npm run admin -- export-person <email>                  (everything about a person, one JSON document)
 *   npm run admin -- erase-person <email> --reason TEXT     (delete it; the audit log records it, naming nobody)
 * Uses the same configuration as the server (DATABASE_URL, or the PGlite folder in DATA_DIR). An embedded database
 * has one owner at a time (decision 0047): while a server holds the folder, every command that opens it is refused
 * (exit code 3) with the holder's pid and where to do the same thing through the running server instead.
 */
import { sql } from "drizzle-orm";
import { type Config, loadConfig } from "../config";
import { type DatabaseHandle, openDatabase } from "../db/client";
import { FolderInUseError } from "../db/folder-lock";
import { type CsvRow, toCsv } from "../lib/csv";
import { loadOrCreateSecret } from "../lib/secrets";
import { PrivacyRequests } from "../modules/admin/privacy";
import { grantAdmin, revokeAdmin } from "../modules/admin/roles";
import { type Actor, recordEvent } from "../modules/events/record";
import { normalizeLicenseKey } from "../modules/licenses/keys";
import { LICENSE_CACHE_LOCAL_TTL_MS } from "../modules/licenses/license-cache";
import { announceLicenseChange } from "../modules/licenses/license-invalidation";
import { setLicenseStatus } from "../modules/licenses/seats/machine-slots";
import { Seats } from "../modules/licenses/seats/seat-lock";
import { createLicenseSigner } from "../modules/licenses/signing";
import { listSubscribers } from "../modules/newsletter/queries";
import { unsubscribeToken } from "../modules/newsletter/service";
import { listSignups } from "../modules/signup/queries";
import { HttpProblem } from "../plugins/errors";

/** The operator at the database (the log names the CLI, not the operator's login: decision 0053). */
const CLI_ACTOR: Actor = { type: "admin", id: "admin-cli" };

const USAGE = `Usage:
  admin signups export [--format csv|json]
  admin subscribers export [--format csv|json]
  admin license suspend|reactivate|expire <license-key> [--reason TEXT]
  admin keys public
  admin admin grant|revoke <email>
  admin export-person <email>
  admin erase-person <email> --reason TEXT`;

/** Exit code when the embedded database is held by another process (a running server). */
export const EXIT_IN_USE = 3;

/** Where each command is done through a running server instead, for the refusal's message. */
function throughTheServer(args: string[], config: Config): string {
  const [subject, verb] = args;
  const consoleAt = (tab: string) => `${config.publicOrigin}/admin?tab=${tab}`;
  if (subject === "admin") {
    return `To ${verb} admin while it runs, sign in to the console as an admin: ${consoleAt("admins")} (Admins).`;
  }
  if (subject === "license") return `To change a license while it runs, use the console: ${consoleAt("customers")}.`;
  if (subject === "signups") return `To export signups while it runs, use the console: ${consoleAt("signups")}.`;
  if (subject === "subscribers")
    return `To export subscribers while it runs, use the console: ${consoleAt("subscribers")}.`;
  return `Or use the console: ${config.publicOrigin}/admin.`;
}

/** Opens the database the server uses; null (with the message printed) when a running server holds it. */
async function open(config: Config, args: string[]): Promise<DatabaseHandle | null> {
  try {
    return await openDatabase(config.database, { holder: `the admin CLI: admin ${args.slice(0, 2).join(" ")}` });
  } catch (error) {
    if (!(error instanceof FolderInUseError)) throw error;
    console.error(`${error.message}\n${throughTheServer(args, config)}`);
    return null;
  }
}

const LICENSE_ACTIONS = { suspend: "suspended", reactivate: "active", expire: "expired" } as const;

async function changeLicenseStatus(
  action: string | undefined,
  key: string | undefined,
  reason: string | undefined,
): Promise<number> {
  const status = LICENSE_ACTIONS[action as keyof typeof LICENSE_ACTIONS];
  if (!status || !key) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const database = await open(config, ["license", action ?? "", key]);
  if (!database) return EXIT_IN_USE;
  try {
    // Recorded in the audit log like a change from the console (actor: the admin CLI).
    // Under the seat lock like a server's change; announced below, once, with what the CLI can reach.
    const seats = new Seats(database.db, async () => {});
    const row = await seats.changeByKey(normalizeLicenseKey(key), async (locked) => {
      const previous = locked.license.status;
      const license = await setLicenseStatus(locked, status);
      await recordEvent(locked.tx, {
        type: "license.status_changed",
        actor: CLI_ACTOR,
        target: { type: "license", id: license.id },
        licenseId: license.id,
        customerId: license.customerId,
        before: { status: previous },
        after: { status: license.status },
        reason: reason ?? "admin CLI",
      });
      return license;
    });
    if (!row) {
      console.error(`No license with key ${key}.`);
      return 1;
    }
    console.log(`${row.licenseKey}: ${row.status}${row.expiresAt ? ` (expires ${row.expiresAt.toISOString()})` : ""}`);
    if (status === "active" && row.expiresAt && row.expiresAt <= new Date()) {
      console.error(`Its end date ${row.expiresAt.toISOString()} has passed: it still validates as EXPIRED.`);
    }
    // PostgreSQL NOTIFY and a Redis message, like a change made by a server (decision 0037).
    if (await announceLicenseChange(database, config.redisUrl, row.licenseKey)) {
      console.error("Running servers see the change within a second.");
    } else {
      console.error(`Running servers see the change within ${LICENSE_CACHE_LOCAL_TTL_MS / 1000} s.`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

type Row = CsvRow;

function option(args: string[], name: string, fallback: string): string {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? args[at + 1]! : fallback;
}

/** The public half of the signing key, as the JWKS a publisher pins into its SDK build. */
function publicKeys(): number {
  const config = loadConfig();
  const signer = createLicenseSigner({ pem: config.licenseSigningKey, dataDir: config.dataDir });
  process.stdout.write(`${JSON.stringify({ keys: [signer.publicJwk] }, null, 2)}\n`);
  console.error(`Build the SDK with it: FLOTILLA_TRUSTED_KEYS=<this file> npm run build -w @flotilla/license-client`);
  return 0;
}

async function changeAdmin(verb: string | undefined, email: string | undefined): Promise<number> {
  if ((verb !== "grant" && verb !== "revoke") || !email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const database = await open(config, ["admin", verb, email]);
  if (!database) return EXIT_IN_USE;
  try {
    const actor = { type: "service" as const, id: "admin-cli" };
    const changed =
      verb === "grant"
        ? await grantAdmin(database.db, email, actor, { reason: "admin CLI" })
        : await revokeAdmin(database.db, email, actor, { reason: "admin CLI" });
    console.log(
      changed ? `${email}: admin ${verb === "grant" ? "granted" : "revoked"}.` : `${email}: nothing to change.`,
    );
    if (verb === "revoke" && config.adminEmails.includes(email.trim().toLowerCase())) {
      console.error(`${email} is also in ADMIN_EMAILS: remove it there too.`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

/** Privacy requests (decision 0046): export prints the JSON document; erase prints what it removed. */
async function privacyRequest(command: string, email: string | undefined, reason: string | undefined): Promise<number> {
  if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim()) || (command === "erase-person" && !reason)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const database = await openDatabase(config.database);
  try {
    let announcedEverywhere = true;
    const privacy = new PrivacyRequests(database.db, {
      seats: new Seats(database.db, async (licenseKey) => {
        // PostgreSQL NOTIFY and a Redis message, like a change made by a server (decision 0037).
        if (!(await announceLicenseChange(database, config.redisUrl, licenseKey))) announcedEverywhere = false;
      }),
      visibleWithinSeconds: () => LICENSE_CACHE_LOCAL_TTL_MS / 1000,
      isAdmin: async (address) =>
        config.adminEmails.includes(address) ||
        (
          (await database.db.execute(sql`select 1 from admins where email_normalized = ${address}`)) as unknown as {
            rows: unknown[];
          }
        ).rows.length > 0,
      // The servers' secret (APP_SECRET, or the data folder's): it opens the development issuer's records.
      appSecret: config.appSecret ?? loadOrCreateSecret(config.dataDir),
    });
    try {
      if (command === "export-person") {
        const document = await privacy.exportPerson(email, CLI_ACTOR, null);
        process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
        console.error("Exported; recorded in the audit log as person.exported.");
        return 0;
      }
      const erasure = await privacy.erasePerson(email, reason!, CLI_ACTOR, null);
      process.stdout.write(`${JSON.stringify(erasure, null, 2)}\n`);
      console.error(
        `Erased (reference ${erasure.erasure_id}). ${
          erasure.erased.licenses === 0 || announcedEverywhere
            ? "Running servers refuse the licenses within a second."
            : `Running servers refuse the licenses within ${LICENSE_CACHE_LOCAL_TTL_MS / 1000} s.`
        }`,
      );
      return 0;
    } catch (error) {
      if (error instanceof HttpProblem) {
        console.error(error.message);
        return error.statusCode === 404 ? 1 : 2;
      }
      throw error;
    }
  } finally {
    await database.close();
  }
}

export async function main(args: string[]): Promise<number> {
  const [subject, verb] = args;
  if (subject === "export-person" || subject === "erase-person") {
    const at = args.indexOf("--reason");
    return privacyRequest(subject, verb, at >= 0 ? args[at + 1] : undefined);
  }
  if (subject === "admin") return changeAdmin(verb, args[2]);
  if (subject === "license") {
    const at = args.indexOf("--reason");
    return changeLicenseStatus(verb, args[2], at >= 0 ? args[at + 1] : undefined);
  }
  if (subject === "keys" && verb === "public") return publicKeys();
  const format = option(args, "format", "csv");
  if (!["signups", "subscribers"].includes(subject ?? "") || verb !== "export" || !["csv", "json"].includes(format)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const database = await open(config, args);
  if (!database) return EXIT_IN_USE;
  try {
    let rows: Row[];
    if (subject === "signups") {
      rows = (await listSignups(database.db)).map((s) => ({
        email: s.email,
        name: s.name,
        company: s.company,
        role: s.role,
        ai_experience: s.aiExperience,
        platform: s.platform,
        interests: s.interests,
        newsletter: s.newsletter,
        created_at: s.createdAt.toISOString(),
        updated_at: s.updatedAt.toISOString(),
      }));
    } else {
      const secret = config.appSecret ?? loadOrCreateSecret(config.dataDir);
      rows = (await listSubscribers(database.db)).map((s) => ({
        email: s.email,
        source: s.source,
        subscribed_at: s.subscribedAt.toISOString(),
        unsubscribed_at: s.unsubscribedAt?.toISOString() ?? null,
        unsubscribe_url: `${config.publicOrigin}/newsletter/unsubscribe?token=${encodeURIComponent(unsubscribeToken(secret, s.id))}`,
      }));
    }
    process.stdout.write(format === "json" ? `${JSON.stringify(rows, null, 2)}\n` : `${toCsv(rows)}\n`);
    console.error(`${rows.length} ${subject} exported.`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
