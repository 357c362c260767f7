/** What the admin API does: searches and exports over signups, subscribers, customers and the audit log; license actions. */
import type {
  ActivityEventSchema,
  AuditQuerySchema,
  CustomerListQuerySchema,
  LicenseAction,
  SignupCountsQuerySchema,
  SignupFilterSchema,
  SignupListQuerySchema,
  SubscriberFilter,
  SubscriberListQuerySchema,
} from "@flotilla/contracts/admin";
import {
  ADMIN_ERRORS,
  ADMIN_RECENT_EXECUTIONS,
  ADMIN_RUNNING_EXECUTIONS_LISTED,
  type AdminLicenseExecutions,
} from "@flotilla/contracts/admin";
import { EMAIL_SHAPE } from "@flotilla/contracts/email";
import type { ActorType } from "@flotilla/contracts/events";
import type { ExecutionEndReason } from "@flotilla/contracts/executions";
import { tierById } from "@flotilla/contracts/tiers";
import {
  type AnyColumn,
  and,
  asc,
  desc,
  eq,
  gt,
  ilike,
  inArray,
  isNotNull,
  isNull,
  lt,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client";
import { auditEvents, customers, licenses, machines, newsletterSubscribers, sessions, signups } from "../../db/schema";
import { normalizeEmail } from "../../lib/privacy";
import { HttpProblem } from "../../plugins/errors";
import { type Actor, recordEvent } from "../events/record";
import { normalizeLicenseKey } from "../licenses/keys";
import type { LicenseRow } from "../licenses/queries";
import { heldExecutions, recentExecutions } from "../licenses/seats/execution-leases";
import { termsOf } from "../licenses/seats/license-terms";
import { changeLicenseTerms, removeMachine, setLicenseStatus } from "../licenses/seats/machine-slots";
import type { Seats } from "../licenses/seats/seat-lock";
import { newestAuditSeqs } from "./newest-first";
import { pageOf, seqCursor, timeCursor, UUID } from "./pagination";
import { licenseKeyHint } from "./privacy";

type SignupFilter = z.output<typeof SignupFilterSchema>;

const iso = (date: Date | null) => date?.toISOString() ?? null;
/** ILIKE pattern for "contains", with the user's % and _ taken literally. */
const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

function fromBound(column: AnyColumn, from: string | undefined) {
  return from ? sql`${column} >= ${from}::timestamptz` : undefined;
}
function toBound(column: AnyColumn, to: string | undefined) {
  if (!to) return undefined;
  // A date alone means "to the end of that day" (UTC).
  return DATE_ONLY.test(to) ? sql`${column} < (${to}::date + 1)::timestamptz` : sql`${column} < ${to}::timestamptz`;
}

function signupWhere(filter: SignupFilter) {
  return and(
    filter.q
      ? or(
          ilike(signups.email, contains(filter.q)),
          ilike(signups.name, contains(filter.q)),
          ilike(signups.company, contains(filter.q)),
        )
      : undefined,
    filter.role ? eq(signups.role, filter.role) : undefined,
    filter.platform ? eq(signups.platform, filter.platform) : undefined,
    filter.experience ? eq(signups.aiExperience, filter.experience) : undefined,
    filter.interest ? ilike(signups.interests, contains(filter.interest)) : undefined,
    fromBound(signups.createdAt, filter.from),
    toBound(signups.createdAt, filter.to),
  );
}

function signupView(row: typeof signups.$inferSelect) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    company: row.company,
    role: row.role,
    ai_experience: row.aiExperience,
    platform: row.platform,
    interests: row.interests,
    newsletter: row.newsletter,
    created_at: row.createdAt.toISOString(),
  };
}

function licenseView(row: typeof licenses.$inferSelect) {
  return {
    id: row.id,
    license_key: row.licenseKey,
    tier: row.tier,
    status: row.status,
    max_machines: row.maxMachines,
    expires_at: iso(row.expiresAt),
    last_seen: iso(row.lastSeen),
    created_at: row.createdAt.toISOString(),
    offline_files_allowed: row.offlineFilesAllowed,
  };
}

function customerView(row: typeof customers.$inferSelect) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    created_at: row.createdAt.toISOString(),
    last_sign_in_at: iso(row.lastSignInAt),
  };
}

/** (created_at, id) keyset, newest first; created_at is compared as PostgreSQL prints it (microseconds). */
function beforeCursor(table: { createdAt: AnyColumn; id: AnyColumn }, cursor: string | undefined) {
  const at = timeCursor(cursor);
  return at ? sql`(${table.createdAt}, ${table.id}) < (${at.at}::timestamptz, ${at.id}::uuid)` : undefined;
}

/**
 * The console's customer list: newest first from customers_created_at_idx; a "contains" search on email or name from
 * their trigram indexes when the match is rare (migration 0017). Exported for the plan test.
 */
export function customerListQuery(db: Database, query: z.output<typeof CustomerListQuerySchema>) {
  return db
    .select({ row: customers, at: sql<string>`${customers.createdAt}::text` })
    .from(customers)
    .where(
      and(
        query.q ? or(ilike(customers.email, contains(query.q)), ilike(customers.name, contains(query.q))) : undefined,
        beforeCursor(customers, query.cursor),
      ),
    )
    .orderBy(desc(customers.createdAt), desc(customers.id))
    .limit(query.limit + 1);
}

function subscriberWhere(filter: SubscriberFilter) {
  const t = newsletterSubscribers;
  const status =
    filter.status === "confirmed"
      ? and(isNotNull(t.confirmedAt), isNull(t.unsubscribedAt))
      : filter.status === "pending"
        ? and(isNull(t.confirmedAt), isNull(t.unsubscribedAt))
        : filter.status === "unsubscribed"
          ? isNotNull(t.unsubscribedAt)
          : undefined;
  return and(filter.q ? ilike(t.email, contains(filter.q)) : undefined, status);
}

function subscriberView(row: typeof newsletterSubscribers.$inferSelect) {
  return {
    id: row.id,
    email: row.email,
    source: row.source,
    status: row.unsubscribedAt
      ? ("unsubscribed" as const)
      : row.confirmedAt
        ? ("confirmed" as const)
        : ("pending" as const),
    subscribed_at: row.subscribedAt.toISOString(),
    confirmed_at: iso(row.confirmedAt),
    unsubscribed_at: iso(row.unsubscribedAt),
  };
}

/**
 * A license's executions for the console: every one that holds a slot (running, or stopping until its app has stopped;
 * up to a bound, the count is exact), then the most recent ended or expired ones, newest first (seats/execution-leases).
 */
async function licenseExecutions(db: Database, license: LicenseRow, now: Date): Promise<AdminLicenseExecutions> {
  const held = await heldExecutions(db, [license.id], now);
  const heldById = new Map(held.map((lease) => [lease.id, lease]));
  // The newest (held + N) leases hold the N newest that hold no slot, whatever the others are.
  const recent = await recentExecutions(db, license.id, held.length + ADMIN_RECENT_EXECUTIONS);
  const others = recent.filter((lease) => !heldById.has(lease.id)).slice(0, ADMIN_RECENT_EXECUTIONS);
  const listed = [
    ...held.slice(-ADMIN_RUNNING_EXECUTIONS_LISTED).map((lease) => ({
      ...lease,
      endedAt: null,
      endReason: lease.stopReason,
    })),
    ...others,
  ].sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : -1));
  const statusOf = (lease: (typeof listed)[number]) => {
    if (lease.endedAt) return "ended" as const;
    const holding = heldById.get(lease.id);
    if (!holding) return "expired" as const;
    return holding.stopping ? ("stopping" as const) : ("running" as const);
  };
  return {
    limit: termsOf(license).executionLimit,
    running: held.filter((lease) => !lease.stopping).length,
    list: listed.map((lease) => ({
      id: lease.id,
      display_id: lease.displayId,
      machine_name: lease.machineName,
      feature: lease.feature,
      started_at: lease.startedAt.toISOString(),
      last_heartbeat_at: lease.lastHeartbeatAt.toISOString(),
      expires_at: lease.expiresAt.toISOString(),
      ended_at: iso(lease.endedAt),
      end_reason: (lease.endReason as ExecutionEndReason | null) ?? null,
      status: statusOf(lease),
    })),
  };
}

export class AdminService {
  constructor(
    private readonly db: Database,
    /** Every change to a license's slots, status and terms, under its seat lock (announced after commit). */
    private readonly seats: Seats,
    private readonly visibleWithinSeconds: () => number,
  ) {}

  async signups(query: z.output<typeof SignupListQuerySchema>) {
    const rows = await this.db
      .select({ row: signups, at: sql<string>`${signups.createdAt}::text` })
      .from(signups)
      .where(and(signupWhere(query), beforeCursor(signups, query.cursor)))
      .orderBy(desc(signups.createdAt), desc(signups.id))
      .limit(query.limit + 1);
    const page = pageOf(rows, query.limit, (r) => [r.at, r.row.id]);
    return { data: page.data.map((r) => signupView(r.row)), next_cursor: page.next_cursor };
  }

  async signupCounts(query: z.output<typeof SignupCountsQuerySchema>) {
    // The interval is one of three literals (schema-checked): inlined, so SELECT and GROUP BY are the same expression.
    const unit = ({ day: "day", week: "week", month: "month" } as const)[query.interval];
    const period = sql`date_trunc('${sql.raw(unit)}', ${signups.createdAt} at time zone 'UTC')`;
    const rows = await this.db
      .select({ period: sql<string>`to_char(${period}, 'YYYY-MM-DD')`, count: sql<number>`count(*)::int` })
      .from(signups)
      .where(signupWhere(query))
      .groupBy(period)
      .orderBy(period);
    return { interval: query.interval, total: rows.reduce((sum, row) => sum + row.count, 0), data: rows };
  }

  /** Every signup matching the filter, oldest first (an export is the whole filter, not a page). */
  async signupExport(filter: SignupFilter) {
    const rows = await this.db
      .select()
      .from(signups)
      .where(signupWhere(filter))
      .orderBy(asc(signups.createdAt), asc(signups.id));
    return rows.map((row) => {
      const view = signupView(row);
      return { ...view, newsletter: view.newsletter ? "yes" : "no" };
    });
  }

  async subscribers(query: z.output<typeof SubscriberListQuerySchema>) {
    const t = newsletterSubscribers;
    const rows = await this.db
      .select({ row: t, at: sql<string>`${t.createdAt}::text` })
      .from(t)
      .where(and(subscriberWhere(query), beforeCursor(t, query.cursor)))
      .orderBy(desc(t.createdAt), desc(t.id))
      .limit(query.limit + 1);
    const page = pageOf(rows, query.limit, (r) => [r.at, r.row.id]);
    return { data: page.data.map(({ row }) => subscriberView(row)), next_cursor: page.next_cursor };
  }

  /** Every subscriber matching the filter, oldest first (the console's CSV of the current filter). */
  async subscriberExport(filter: SubscriberFilter) {
    const t = newsletterSubscribers;
    const rows = await this.db.select().from(t).where(subscriberWhere(filter)).orderBy(asc(t.createdAt), asc(t.id));
    return rows.map((row) => subscriberView(row));
  }

  async customers(query: z.output<typeof CustomerListQuerySchema>) {
    const rows = await customerListQuery(this.db, query);
    const page = pageOf(rows, query.limit, (r) => [r.at, r.row.id]);
    return { data: page.data.map((r) => customerView(r.row)), next_cursor: page.next_cursor };
  }

  private async customer(id: string) {
    if (!UUID.test(id)) throw new HttpProblem(404, ADMIN_ERRORS.customerNotFound, "NOT_FOUND");
    const [row] = await this.db.select().from(customers).where(eq(customers.id, id));
    if (!row) throw new HttpProblem(404, ADMIN_ERRORS.customerNotFound, "NOT_FOUND");
    return row;
  }

  async customerDetail(id: string, isAdmin: (email: string) => Promise<boolean>) {
    const customer = await this.customer(id);
    const now = new Date();
    const owned = await this.db
      .select()
      .from(licenses)
      .where(eq(licenses.customerId, id))
      .orderBy(asc(licenses.createdAt));
    const withMachines = await Promise.all(
      owned.map(async (license) => ({
        ...licenseView(license),
        machines: (
          await this.db.select().from(machines).where(eq(machines.licenseId, license.id)).orderBy(asc(machines.boundAt))
        ).map((m) => ({
          machine_id: m.machineId,
          display_id: m.displayId,
          machine_name: m.machineName,
          platform: m.platform,
          is_primary: m.isPrimary,
          bound_at: m.boundAt.toISOString(),
          last_seen: iso(m.lastSeen),
          status: m.status === "inactive" ? ("inactive" as const) : ("active" as const),
          license_file_until: m.leaseUntil && m.leaseUntil > now ? m.leaseUntil.toISOString() : null,
        })),
        executions: await licenseExecutions(this.db, license, now),
      })),
    );
    const live = await this.db
      .select()
      .from(sessions)
      .where(
        and(
          eq(sessions.customerId, id),
          isNull(sessions.revokedAt),
          gt(sessions.expiresAt, now),
          gt(sessions.absoluteExpiresAt, now),
        ),
      )
      .orderBy(desc(sessions.lastUsedAt));
    return {
      customer: customerView(customer),
      is_admin: await isAdmin(customer.email),
      licenses: withMachines,
      sessions: live.map((s) => ({
        id: s.id,
        created_at: s.createdAt.toISOString(),
        last_used_at: s.lastUsedAt.toISOString(),
        expires_at: (s.expiresAt < s.absoluteExpiresAt ? s.expiresAt : s.absoluteExpiresAt).toISOString(),
      })),
    };
  }

  async signOutEverywhere(id: string, actor: Actor, address: string) {
    const customer = await this.customer(id);
    return this.db.transaction(async (tx) => {
      const revoked = await tx
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.customerId, customer.id), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      await recordEvent(tx, {
        type: "customer.sessions_revoked",
        actor,
        target: { type: "customer", id: customer.id },
        customerId: customer.id,
        before: null,
        after: { revoked: revoked.length },
        address,
      });
      return revoked.length;
    });
  }

  /** The license with this key (any spelling the server normalises), or 404. */
  async license(licenseKey: string): Promise<LicenseRow> {
    const [license] = await this.db
      .select()
      .from(licenses)
      .where(eq(licenses.licenseKey, normalizeLicenseKey(licenseKey)));
    if (!license) throw new HttpProblem(404, ADMIN_ERRORS.licenseNotFound, "NOT_FOUND");
    return license;
  }

  /**
   * Suspend, reactivate, expire, extend or change a license; recorded with its reason, published to every cache. Under
   * the seat lock: a lower device limit is refused while more slots are taken; a tier with a lower execution limit stops
   * the executions started last beyond it (their apps are told at once).
   */
  async licenseAction(licenseKey: string, action: LicenseAction, actor: Actor, address: string) {
    if (
      action.action === "change" &&
      !action.tier &&
      action.max_machines === undefined &&
      action.offline_files === undefined
    ) {
      throw new HttpProblem(400, ADMIN_ERRORS.changeNeedsSomething, "VALIDATION_ERROR");
    }
    const row = await this.seats.changeByKey(normalizeLicenseKey(licenseKey), async (locked) => {
      const current = locked.license;
      let updated: LicenseRow;
      let type: "license.status_changed" | "license.extended" | "license.updated";
      let before: Record<string, unknown>;
      let after: Record<string, unknown>;
      if (action.action === "suspend" || action.action === "reactivate" || action.action === "expire") {
        const status = ({ suspend: "suspended", reactivate: "active", expire: "expired" } as const)[action.action];
        updated = await setLicenseStatus(locked, status);
        type = "license.status_changed";
        before = { status: current.status };
        after = { status };
      } else if (action.action === "extend") {
        const expiresAt = action.expires_at ? new Date(action.expires_at) : null;
        const changed = await changeLicenseTerms(locked, { expiresAt });
        if (changed.outcome !== "changed") throw new Error("an extension changes no slot");
        updated = changed.license;
        type = "license.extended";
        before = { expires_at: iso(current.expiresAt) };
        after = { expires_at: iso(expiresAt) };
      } else {
        const tier = action.tier ? tierById(action.tier) : undefined;
        const changed = await changeLicenseTerms(locked, {
          ...(tier ? { tier: tier.tier } : {}),
          maxMachines: action.max_machines ?? tier?.maxMachines,
          offlineFilesAllowed: action.offline_files,
        });
        if (changed.outcome === "slots-in-use") {
          throw new HttpProblem(409, ADMIN_ERRORS.limitBelowSlotsInUse(changed.inUse), "SLOTS_IN_USE");
        }
        updated = changed.license;
        type = "license.updated";
        before = {
          tier: current.tier,
          max_machines: current.maxMachines,
          offline_files_allowed: current.offlineFilesAllowed,
        };
        after = {
          tier: updated.tier,
          max_machines: updated.maxMachines,
          offline_files_allowed: updated.offlineFilesAllowed,
          // The executions a lower limit stopped (the most recently started beyond it).
          ...(changed.stoppedExecutions.length > 0 ? { stopped_executions: changed.stoppedExecutions } : {}),
        };
      }
      await recordEvent(locked.tx, {
        type,
        actor,
        target: { type: "license", id: current.id },
        licenseId: current.id,
        customerId: current.customerId,
        before,
        after,
        reason: action.reason,
        address,
      });
      return updated;
    });
    if (!row) throw new HttpProblem(404, ADMIN_ERRORS.licenseNotFound, "NOT_FOUND");
    return { data: licenseView(row), visible_within_seconds: this.visibleWithinSeconds() };
  }

  /**
   * Support's remedy for a leaked key (decision 0036): frees a machine's slot even while its license file works (the
   * file may run offline until it expires), bars the machine, and may take the last one. Recorded with its reason.
   */
  async revokeMachine(licenseKey: string, machineId: string, reason: string, actor: Actor, address: string) {
    const license = await this.license(licenseKey);
    const result = await this.seats.change(license.id, (locked) =>
      removeMachine(locked, machineId, { revokeBy: "admin" }, (removed, fileValidUntil) =>
        recordEvent(locked.tx, {
          type: "machine.revoked",
          actor,
          target: { type: "machine", id: removed.machineId },
          customerId: license.customerId,
          licenseId: license.id,
          before: { display_id: removed.displayId, machine_name: removed.machineName, is_primary: removed.isPrimary },
          after: { license_file_valid_until: fileValidUntil?.toISOString() ?? null },
          reason,
          address,
        }),
      ),
    );
    if (result?.outcome !== "removed") throw new HttpProblem(404, ADMIN_ERRORS.machineNotFound, "NOT_FOUND");
    return {
      license_file_valid_until: result.fileValidUntil?.toISOString() ?? null,
      visible_within_seconds: this.visibleWithinSeconds(),
    };
  }

  /** The current address of each account id (ids that are not accounts, e.g. "admin-cli", have none). */
  private async currentAddresses(ids: string[]): Promise<Map<string, string>> {
    const accounts = [...new Set(ids.filter((id) => UUID.test(id)))];
    if (accounts.length === 0) return new Map();
    const rows = await this.db
      .select({ id: customers.id, email: customers.email })
      .from(customers)
      .where(inArray(customers.id, accounts));
    return new Map(rows.map((row) => [row.id, row.email]));
  }

  async audit(query: z.output<typeof AuditQuerySchema>) {
    const t = auditEvents;
    const cursor = seqCursor(query.cursor);
    // The log names actors by id (decision 0053): an address finds the actions of the account that has it now.
    const actorAccounts =
      query.actor && EMAIL_SHAPE.test(query.actor.trim())
        ? (
            await this.db
              .select({ id: customers.id })
              .from(customers)
              .where(sql`lower(${customers.email}) = ${normalizeEmail(query.actor)}`)
          ).map((row) => row.id)
        : [];
    const filters = and(
      query.type ? eq(t.type, query.type) : undefined,
      query.target_type ? eq(t.targetType, query.target_type) : undefined,
      query.target_id ? eq(t.targetId, query.target_id) : undefined,
      query.customer_id ? eq(t.customerId, query.customer_id) : undefined,
      query.license_id ? eq(t.licenseId, query.license_id) : undefined,
      fromBound(t.occurredAt, query.from),
      toBound(t.occurredAt, query.to),
      cursor !== null ? lt(t.seq, cursor) : undefined,
    );
    // The actor is a type, an id or an address's accounts: one indexed branch each, merged newest first (an OR of
    // them read the whole log, decision 0058).
    const actorSeqs = query.actor
      ? await newestAuditSeqs(
          this.db,
          [eq(t.actorType, query.actor), eq(t.actorId, query.actor), ...actorAccounts.map((id) => eq(t.actorId, id))],
          filters,
          query.limit + 1,
        )
      : null;
    const where = actorSeqs === null ? filters : actorSeqs.length > 0 ? inArray(t.seq, actorSeqs) : sql`false`;
    const rows = await this.db
      .select({ event: t, key: licenses.licenseKey })
      .from(t)
      .leftJoin(licenses, eq(licenses.id, t.licenseId))
      .where(where)
      .orderBy(desc(t.seq))
      .limit(query.limit + 1);
    const page = pageOf(rows, query.limit, (row) => [row.event.seq]);
    const admins = await this.currentAddresses(
      page.data.flatMap(({ event }) => (event.actorType === "admin" && event.actorId ? [event.actorId] : [])),
    );
    return {
      data: page.data.map(({ event: row, key }) => ({
        id: row.id,
        type: row.type,
        // An admin's address is today's, from their account while it exists; the log holds only the id.
        actor: { type: row.actorType, id: row.actorId, email: admins.get(row.actorId ?? "") ?? null },
        target: { type: row.targetType, id: row.targetId },
        customer_id: row.customerId,
        license_id: row.licenseId,
        // What an operator recognises a license by, rather than its id (issue 25).
        license_key_hint: key ? licenseKeyHint(key) : null,
        before: row.before,
        after: row.after,
        reason: row.reason,
        address: row.address,
        occurred_at: row.occurredAt.toISOString(),
      })),
      next_cursor: page.next_cursor,
    };
  }
}

/**
 * A customer's own activity: events about them or their licenses; staff identities and addresses left out. The events
 * about them and those of each license are read newest first from their own indexes and merged (decision 0058).
 */
export async function customerActivity(db: Database, customerId: string, query: { cursor?: string; limit: number }) {
  const t = auditEvents;
  const cursor = seqCursor(query.cursor);
  const seqs = await newestAuditSeqs(
    db,
    await activityBranches(db, customerId),
    cursor !== null ? lt(t.seq, cursor) : undefined,
    query.limit + 1,
  );
  const rows = seqs.length === 0 ? [] : await db.select().from(t).where(inArray(t.seq, seqs)).orderBy(desc(t.seq));
  const page = pageOf(rows, query.limit, (row) => [row.seq]);
  return {
    data: page.data.map((row) => ({
      id: row.id,
      type: row.type,
      actor: activityActor(row.actorType as ActorType, row.actorId === customerId),
      target: { type: row.targetType, id: row.targetId },
      before: row.before,
      after: row.after,
      reason: row.reason,
      occurred_at: row.occurredAt.toISOString(),
    })),
    next_cursor: page.next_cursor,
  };
}

/** What a customer's activity holds: the events about them, and those of each license they own. */
export async function activityBranches(db: Pick<Database, "select">, customerId: string): Promise<SQL[]> {
  const owned = await db.select({ id: licenses.id }).from(licenses).where(eq(licenses.customerId, customerId));
  return [eq(auditEvents.customerId, customerId), ...owned.map((license) => eq(auditEvents.licenseId, license.id))];
}

/** How a customer sees who acted: themselves, support (no staff identity), the service, or someone not signed in. */
function activityActor(type: ActorType, isThisCustomer: boolean): z.infer<typeof ActivityEventSchema>["actor"] {
  switch (type) {
    case "customer":
      return isThisCustomer ? "you" : "service";
    case "admin":
      return "support";
    case "service":
    case "system":
      return "service";
    case "anonymous":
      return "anonymous";
  }
}
