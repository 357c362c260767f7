/**
 * Privacy requests (decision 0046): everything the service holds about a person, found by their email address, as
 * one JSON document that opens with a summary a person can read (export, decision 0056), or deleted in one
 * transaction (erasure) that mails the person a notice and leaves a tombstone of each session it ended (0056). A person is matched by their ids and their
 * exact (normalised) address in named fields, never by searching text: ann@ex.co is not inside joann@ex.com.
 *
 * A person is their signups, their newsletter subscription and every customer account signed in with the address;
 * through the accounts, their licenses (machines, removals, revoked license files, refusals, machine events, usage,
 * validation counts, rotated keys, Idempotency-Keys) and sessions; the sign-in records of the development issuer;
 * the mail and webhook messages about them (outbox, delivery log, development mail); and the audit rows about them.
 *
 * The audit log is append-only (migration 0009): its rows stay. They name people by id, never by email or name
 * (recordEvent keeps those out), so once the records the ids point at are gone nothing links them to a person.
 * The erasure's own row names nobody: counts only, and the operator's reason, which may not name the person.
 */
import { ADMIN_ERRORS, AUDIT_LOG_NOTE, type PersonErasure } from "@flotilla/contracts/admin";
import {
  PERSON_EXPORT_FORMAT,
  type PersonExport,
  type PersonExportData,
  personExportAbout,
  personExportSummary,
} from "@flotilla/contracts/person-export";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { normalizeEmail } from "../../lib/privacy";
import { HttpProblem } from "../../plugins/errors";
import { devSubject, readDevIssuerRecords } from "../auth/dev-issuer-store";
import { type Actor, recordEvent } from "../events/record";
import { lockLicense, type Seats } from "../licenses/seats/seat-lock";

type Row = Record<string, unknown>;

async function rows(db: Database, statement: SQL): Promise<Row[]> {
  const result = (await db.execute(statement)) as unknown as { rows: Row[] };
  return result.rows;
}

/** PostgreSQL's text form of a timestamptz ("2026-01-02 10:00:00.123+00"), as raw queries may return it. */
const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}(:\d{2})?$/;

/** Timestamps as ISO strings, whichever driver read them (Date objects or PostgreSQL's text): plain JSON. */
function plain(row: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] =
      value instanceof Date
        ? value.toISOString()
        : typeof value === "string" && PG_TIMESTAMP.test(value)
          ? new Date(value.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00")).toISOString()
          : value;
  }
  return out;
}

const uuids = (ids: string[]) =>
  sql`array[${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )}]::uuid[]`;
const texts = (values: string[]) =>
  sql`array[${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )}]::text[]`;

/** "…ABCDE": enough for the person to recognise their key, not enough to use it. */
export function licenseKeyHint(key: string): string {
  return `…${key.slice(-5)}`;
}

interface Person {
  /** Trimmed and lower-cased: compared exactly, never searched for inside other text. */
  email: string;
  signupIds: string[];
  subscriberIds: string[];
  /** Their beta invitation (one per address, decision 0062). */
  invitationIds: string[];
  customers: { id: string; subject: string; name: string }[];
  licenses: { id: string; key: string; customerId: string }[];
  /** Every key their licenses answer to: the current ones and rotated ones still in their grace. */
  keys: string[];
  names: string[];
}

async function findPerson(db: Database, email: string): Promise<Person | null> {
  const normalized = normalizeEmail(email);
  const signupRows = await rows(db, sql`select id, name from signups where email_normalized = ${normalized}`);
  const subscriberRows = await rows(
    db,
    sql`select id from newsletter_subscribers where email_normalized = ${normalized}`,
  );
  const customerRows = await rows(
    db,
    sql`select id, subject, name from customers where lower(email) = ${normalized} order by created_at`,
  );
  const invitationRows = await rows(db, sql`select id from beta_invitations where email_normalized = ${normalized}`);
  if (signupRows.length + subscriberRows.length + customerRows.length + invitationRows.length === 0) return null;
  const customers = customerRows.map((r) => ({ id: String(r.id), subject: String(r.subject), name: String(r.name) }));
  const licenseRows =
    customers.length === 0
      ? []
      : await rows(
          db,
          sql`select id, license_key, customer_id from licenses where customer_id = any(${uuids(customers.map((c) => c.id))})`,
        );
  const licenses = licenseRows.map((r) => ({
    id: String(r.id),
    key: String(r.license_key),
    customerId: String(r.customer_id),
  }));
  const aliasRows =
    licenses.length === 0
      ? []
      : await rows(
          db,
          sql`select license_key from license_key_aliases where license_id = any(${uuids(licenses.map((l) => l.id))})`,
        );
  return {
    email: normalized,
    signupIds: signupRows.map((r) => String(r.id)),
    subscriberIds: subscriberRows.map((r) => String(r.id)),
    invitationIds: invitationRows.map((r) => String(r.id)),
    customers,
    licenses,
    keys: [...licenses.map((l) => l.key), ...aliasRows.map((r) => String(r.license_key))],
    names: [...new Set([...signupRows.map((r) => String(r.name)), ...customers.map((c) => c.name)])].filter(
      (name) => name.trim().length >= 3,
    ),
  };
}

/** Actors that are parts of the service, named by what they are ("license-api"), never a person. */
const SERVICE_ACTORS = new Set(["service", "system"]);

/**
 * An audit row about the person as their export shows it: the actor's id and the request's network address only
 * when the person made the change themselves (signed in). An admin's, or a stranger's who typed their address
 * while signed out, are someone else's data.
 */
function ownActorOnly(row: Row, person: Person): Row {
  const own = row.actor_type === "customer" && person.customers.some((c) => c.id === row.actor_id);
  return {
    ...row,
    actor_id: own || SERVICE_ACTORS.has(String(row.actor_type)) ? row.actor_id : null,
    address: own ? row.address : null,
  };
}

/** The audit rows about a person: filed under their accounts or licenses, or targeting any of their records. */
function auditWhere(person: Person): SQL {
  const customerIds = person.customers.map((c) => c.id);
  const licenseIds = person.licenses.map((l) => l.id);
  const targets = [
    ...person.signupIds,
    ...person.subscriberIds,
    ...person.invitationIds,
    ...customerIds,
    ...licenseIds,
  ];
  const parts: SQL[] = [];
  if (customerIds.length > 0) parts.push(sql`customer_id = any(${uuids(customerIds)})`);
  if (licenseIds.length > 0) parts.push(sql`license_id = any(${uuids(licenseIds)})`);
  if (targets.length > 0) parts.push(sql`target_id = any(${texts(targets)})`);
  return sql.join(parts, sql` or `);
}

/** Who granted an admin role, once the person who did has been erased. */
export const ERASED_GRANTER = "an erased account";

/** An address as stored somewhere, normalised in SQL the way normalizeEmail does it. */
const sameAddress = (column: SQL, person: Person) => sql`lower(btrim(${column})) = ${person.email}`;

/**
 * Outbox rows about a person: the messages of their audit events, mail addressed to them, and webhooks whose event
 * carries their address (e.g. admin.granted). Exact fields only: "ann@ex.co" is not inside "joann@ex.com"'s message.
 */
function outboxWhere(person: Person): SQL {
  return sql`(event_id in (select id from audit_events where ${auditWhere(person)})
    or (channel = 'email' and ${sameAddress(sql`payload->>'to'`, person)})
    or ${sameAddress(sql`payload->'data'->'after'->>'email'`, person)}
    or ${sameAddress(sql`payload->'data'->'before'->>'email'`, person)})`;
}

function devMailWhere(person: Person): SQL {
  return sql`(${sameAddress(sql`recipient`, person)}
    or event_id in (select id from audit_events where ${auditWhere(person)}))`;
}

async function count(db: Database, statement: SQL): Promise<number> {
  const [row] = await rows(db, sql`select count(*)::int as n from (${statement}) counted`);
  return Number(row?.n ?? 0);
}

/** Rows a delete, insert or update changed. */
async function affected(db: Database, statement: SQL): Promise<number> {
  const [row] = await rows(db, sql`with gone as (${statement} returning 1) select count(*)::int as n from gone`);
  return Number(row?.n ?? 0);
}

export interface PrivacyDependencies {
  /** The seat lock, and its notices to every instance (an erased license must stop validating everywhere). */
  seats: Seats;
  visibleWithinSeconds: () => number;
  /** Whether the address has the admin role (configuration or the admins table). */
  isAdmin: (email: string) => Promise<boolean>;
  /** Writes this instance's pending attempt counters and last-seen times (so none lands after the erasure). */
  flushCounters?: () => Promise<void>;
  /** APP_SECRET: the development issuer's records are sealed with it, so only it tells whose they are. */
  appSecret: string;
}

export class PrivacyRequests {
  private readonly seats: Seats;
  private readonly visibleWithinSeconds: PrivacyDependencies["visibleWithinSeconds"];
  private readonly isAdmin: PrivacyDependencies["isAdmin"];
  private readonly flushCounters: NonNullable<PrivacyDependencies["flushCounters"]>;
  private readonly appSecret: string;

  constructor(
    private readonly db: Database,
    dependencies: PrivacyDependencies,
  ) {
    this.seats = dependencies.seats;
    this.visibleWithinSeconds = dependencies.visibleWithinSeconds;
    this.isAdmin = dependencies.isAdmin;
    this.flushCounters = dependencies.flushCounters ?? (async () => {});
    this.appSecret = dependencies.appSecret;
  }

  /**
   * Deletes the development issuer's records of the person: those naming one of their accounts (a customer's
   * subject, or the subject the issuer derives from the address) or their address, compared exactly once opened.
   */
  private async deleteSignInRecords(tx: Database, person: Person): Promise<number> {
    const accounts = new Set([devSubject(person.email), ...person.customers.map((c) => c.subject)]);
    const records = (await readDevIssuerRecords(tx, this.appSecret)).filter(
      (record) => (record.accountId !== null && accounts.has(record.accountId)) || record.email === person.email,
    );
    if (records.length === 0) return 0;
    return affected(
      tx,
      sql`delete from oidc_store where (model, id) in (${sql.join(
        records.map((record) => sql`(${record.model}, ${record.id})`),
        sql`, `,
      )})`,
    );
  }

  /**
   * Everything about the person as one document — a summary of each kind of data (what, from where, kept how long,
   * how many), then the data — recorded in the audit log (person.exported, no personal data).
   */
  async exportPerson(email: string, actor: Actor, address: string | null): Promise<PersonExport> {
    const db = this.db;
    const person = await findPerson(db, email);
    if (!person) throw new HttpProblem(404, ADMIN_ERRORS.personNotFound, "NOT_FOUND");
    const normalized = person.email;
    const signups = await rows(
      db,
      sql`select id, email, name, company, role, ai_experience, platform, interests, newsletter, created_at, updated_at
        from signups where email_normalized = ${normalized} order by created_at`,
    );
    const subscriptions = await rows(
      db,
      sql`select id, email, source, subscribed_at, confirmed_at, unsubscribed_at, confirmation_sent_at, created_at
        from newsletter_subscribers where email_normalized = ${normalized}`,
    );
    const betaInvitations = (
      await rows(
        db,
        sql`select i.id, i.email, w.name as wave, w.starts_on::text as wave_date, i.invited_at, i.last_sent_at, i.sends,
          i.accepted_at, i.withdrawn_at from beta_invitations i join beta_waves w on w.id = i.wave_id
          where i.email_normalized = ${normalized} order by i.invited_at`,
      )
    ).map(plain);
    const customers: PersonExportData["customers"] = [];
    for (const customer of person.customers) {
      const [account] = await rows(
        db,
        sql`select id, issuer, subject, email, name, avatar_url, last_sign_in_at, created_at, updated_at
          from customers where id = ${customer.id}`,
      );
      const licenses: Row[] = [];
      for (const license of person.licenses.filter((l) => l.customerId === customer.id)) {
        const [row] = await rows(
          db,
          sql`select id, tier, status, max_machines, expires_at, last_seen, offline_files_allowed, created_at,
            updated_at from licenses where id = ${license.id}`,
        );
        const of = (statement: SQL) => rows(db, statement).then((list) => list.map(plain));
        licenses.push({
          ...plain(row ?? {}),
          license_key_hint: licenseKeyHint(license.key),
          machines: await of(
            sql`select machine_id, display_id, machine_name, platform, app_version, is_primary, bound_at, last_seen,
              status, inactive_since, lease_until from machines where license_id = ${license.id} order by bound_at`,
          ),
          removed_machines: await of(
            sql`select machine_id, display_id, machine_name, removed_at from machine_removals
              where license_id = ${license.id} order by removed_at`,
          ),
          revoked_license_files: await of(
            sql`select machine_id, display_id, revoked_at, valid_until, revoked_by from revoked_license_files
              where license_id = ${license.id} order by revoked_at`,
          ),
          refused_machines: await of(
            sql`select machine_id, display_id, machine_name, platform, refused_at from activation_refusals
              where license_id = ${license.id} order by refused_at`,
          ),
          machine_events: await of(
            sql`select machine_id, kind, at from machine_events where license_id = ${license.id} order by at`,
          ),
          executions: await of(
            sql`select id, machine_id, feature, started_at, last_heartbeat_at, expires_at, stop_requested_at, ended_at,
              end_reason from execution_leases where license_id = ${license.id} order by started_at`,
          ),
          usage_reports: await of(
            sql`select machine_id, feature, executions, created_at from usage_reports
              where license_id = ${license.id} order by created_at`,
          ),
          usage_per_day: await of(
            sql`select day::text as day, machine_id, feature, executions from usage_rollups
              where license_id = ${license.id} order by day`,
          ),
          validations_per_day: await of(
            sql`select day::text as day, machine_id, code, attempts from validation_rollups
              where license_id = ${license.id} order by day`,
          ),
        });
      }
      const sessions = (
        await rows(
          db,
          sql`select id, created_at, last_used_at, expires_at, absolute_expires_at, revoked_at from sessions
            where customer_id = ${customer.id} order by created_at`,
        )
      ).map(plain);
      customers.push({ ...plain(account ?? {}), licenses, sessions });
    }
    const auditEvents = (
      await rows(
        db,
        sql`select id, type, actor_type, actor_id, target_type, target_id, customer_id, license_id, before, after,
          reason, address, occurred_at from audit_events where ${auditWhere(person)} order by seq`,
      )
    ).map((row) => plain(ownActorOnly(row, person)));
    const messages = (
      await rows(
        db,
        sql`select o.id, o.channel, o.status, a.type as event_type, o.created_at, o.finished_at
          from outbox o left join audit_events a on a.id = o.event_id where ${outboxWhere(person)} order by o.seq`,
      )
    ).map(plain);
    const data: PersonExportData = {
      signups: signups.map(plain),
      newsletter_subscriptions: subscriptions.map(plain),
      beta_invitations: betaInvitations,
      customers,
      audit_events: auditEvents,
      messages,
    };
    const generatedAt = new Date().toISOString();
    const document: PersonExport = {
      format: PERSON_EXPORT_FORMAT,
      generated_at: generatedAt,
      email: normalized,
      about: personExportAbout(normalized, generatedAt),
      summary: personExportSummary(data),
      audit_log_note: AUDIT_LOG_NOTE,
      data,
    };
    await recordEvent(db, {
      type: "person.exported",
      actor,
      target: { type: "person", id: person.customers[0]?.id ?? person.signupIds[0] ?? person.subscriberIds[0]! },
      customerId: person.customers[0]?.id ?? null,
      before: null,
      after: {
        signups: signups.length,
        newsletter_subscriptions: subscriptions.length,
        beta_invitations: betaInvitations.length,
        customers: customers.length,
        licenses: person.licenses.length,
        audit_events: auditEvents.length,
      },
      address,
    });
    return document;
  }

  /**
   * Deletes everything about the person in one transaction: each license under its seat lock (a validation, bind or
   * checkout deciding at the same moment waits, then finds no license), their sessions with their accounts, and the
   * messages about them. Writes person.erased with counts only.
   */
  async erasePerson(email: string, reason: string, actor: Actor, address: string | null): Promise<PersonErasure> {
    const normalized = normalizeEmail(email);
    if (await this.isAdmin(normalized)) throw new HttpProblem(409, ADMIN_ERRORS.eraseAdmin, "IS_ADMIN");
    await this.flushCounters();
    const outcome = await this.db.transaction(async (transaction) => {
      const tx = transaction as unknown as Database;
      const person = await findPerson(tx, normalized);
      if (!person) throw new HttpProblem(404, ADMIN_ERRORS.personNotFound, "NOT_FOUND");
      const lowerReason = reason.toLowerCase();
      if ([person.email, ...person.names.map((n) => n.toLowerCase())].some((text) => lowerReason.includes(text))) {
        throw new HttpProblem(400, ADMIN_ERRORS.reasonNamesPerson, "VALIDATION_ERROR");
      }
      const now = new Date();
      const customerIds = person.customers.map((c) => c.id);

      // Messages first: their rows are found through the audit rows and the records below.
      const outboxIds = (await rows(tx, sql`select id from outbox where ${outboxWhere(person)}`)).map((r) =>
        String(r.id),
      );
      const eventIds = (await rows(tx, sql`select id from audit_events where ${auditWhere(person)}`)).map((r) =>
        String(r.id),
      );
      let messages = 0;
      if (outboxIds.length > 0) {
        messages += await affected(tx, sql`delete from outbox where id = any(${uuids(outboxIds)})`);
        await affected(tx, sql`delete from webhook_deliveries where outbox_id = any(${uuids(outboxIds)})`);
      }
      if (eventIds.length > 0) {
        await affected(tx, sql`delete from webhook_deliveries where event_id = any(${uuids(eventIds)})`);
      }
      const devMail = await affected(tx, sql`delete from dev_mail where ${devMailWhere(person)}`);
      const signInRecords = await this.deleteSignInRecords(tx, person);

      // Seats: each license under its lock, its machines released with it (every table below cascades from it).
      let machines = 0;
      for (const license of person.licenses) {
        const locked = await lockLicense(transaction, license.id);
        if (!locked) continue;
        machines += await count(tx, sql`select 1 from machines where license_id = ${license.id}`);
      }
      if (person.licenses.length > 0) {
        // Counters belong to the license (decision 0045); its deletion below would cascade, this counts them.
        await affected(
          tx,
          sql`delete from validation_rollups where license_id = any(${uuids(person.licenses.map((l) => l.id))})`,
        );
      }
      if (person.keys.length > 0) {
        await affected(
          tx,
          sql`delete from idempotency_keys where scope = any(${texts(person.keys.map((key) => `usage:${key}`))})`,
        );
      }
      const licenses =
        person.licenses.length === 0
          ? 0
          : await affected(tx, sql`delete from licenses where id = any(${uuids(person.licenses.map((l) => l.id))})`);

      // Sessions end with the accounts (ON DELETE CASCADE). The live ones leave a tombstone first — their token's
      // hash and when they would have ended at the latest, nothing else — so a browser still holding one is told
      // `account_erased` (decision 0056); the retention job deletes it then. Their count is the live sessions ended.
      const sessionsRevoked =
        customerIds.length === 0
          ? 0
          : await affected(
              tx,
              sql`insert into erased_sessions (token_hash, ends_at)
                select token_hash, absolute_expires_at from sessions
                where customer_id = any(${uuids(customerIds)}) and revoked_at is null
                  and expires_at > ${now.toISOString()}::timestamptz
                  and absolute_expires_at > ${now.toISOString()}::timestamptz
                on conflict (token_hash) do nothing`,
            );
      const customers =
        customerIds.length === 0
          ? 0
          : await affected(tx, sql`delete from customers where id = any(${uuids(customerIds)})`);
      const betaInvitations = await affected(
        tx,
        sql`delete from beta_invitations where email_normalized = ${person.email}`,
      );
      const signups = await affected(tx, sql`delete from signups where email_normalized = ${person.email}`);
      const subscriptions = await affected(
        tx,
        sql`delete from newsletter_subscribers where email_normalized = ${person.email}`,
      );
      // Grants they made still stand, and named them as the granter (the admin list shows it).
      await affected(
        tx,
        sql`update admins set granted_by = ${ERASED_GRANTER} where ${sameAddress(sql`granted_by`, person)}`,
      );
      const auditEventsKept = eventIds.length;
      const erased = {
        signups,
        newsletter_subscriptions: subscriptions,
        beta_invitations: betaInvitations,
        customers,
        licenses,
        machines,
        sessions_revoked: sessionsRevoked,
        messages,
        dev_mail: devMail,
        sign_in_records: signInRecords,
      };
      const event = await recordEvent(tx, {
        type: "person.erased",
        actor,
        // The person is gone: the row names the erasure itself, not them.
        target: { type: "erasure", id: crypto.randomUUID() },
        before: null,
        after: { ...erased, audit_events_kept: auditEventsKept },
        reason,
        address,
        // The notice (mail-templates.ts): what went, what stays, what signing in again does. Its outbox row holds
        // the address until it is delivered or given up, then goes (MAIL_FORGOTTEN_ONCE_SENT, decision 0056).
        recipient: person.email,
      });
      return { erasureId: event.id, erased, auditEventsKept, keys: person.keys };
    });
    await this.seats.announce(outcome.keys);
    if (outcome.keys.length > 0) {
      // Attempts counted by requests that read the license before it went wait in memory: flushing them now finds
      // the license gone and drops them (counters are keyed by license, decision 0045). Later attempts with the key
      // count as an unknown key's, which names nobody.
      await this.flushCounters();
    }
    return {
      erasure_id: outcome.erasureId,
      erased: outcome.erased,
      audit_events_kept: outcome.auditEventsKept,
      audit_log_note: AUDIT_LOG_NOTE,
      visible_within_seconds: this.visibleWithinSeconds(),
    };
  }
}
