/**
 * The console's beta admission (issue 36, decision 0062): waves, admitting signups, resending and withdrawing
 * invitations, and each wave's funnel. Every change is one transaction with its audit row and, for an invitation sent,
 * its mail in the outbox (recordEvent): the change and its mail commit together or not at all.
 *
 * Admitting is idempotent by construction: one invitation per normalised address (a unique index), inserted with
 * ON CONFLICT DO NOTHING, and a mail only for a row this statement inserted. Two operators admitting the same signup
 * at once both run the insert; PostgreSQL makes the second wait on the first's row and then do nothing, so one mail.
 *
 * The funnel is read from the tables that already say it (decision 0062): accepted_at for "signed in", the license's
 * created_at, its machines' first binding, its first execution or usage report. Nothing is counted twice.
 */
import type {
  AdmitSchema,
  BetaInvitation,
  BetaWave,
  CandidateQuerySchema,
  CreateWaveSchema,
  InvitationStatus,
} from "@flotilla/contracts/beta";
import { BETA_ERRORS } from "@flotilla/contracts/beta";
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client";
import { betaInvitations, betaWaves, signups } from "../../db/schema";
import { HttpProblem } from "../../plugins/errors";
import { type Actor, recordEvent } from "../events/record";

type Row = Record<string, unknown>;

async function rows(db: Pick<Database, "execute">, statement: SQL): Promise<Row[]> {
  return ((await db.execute(statement)) as unknown as { rows: Row[] }).rows;
}

/** A timestamp as ISO text, whichever driver read it (Date, or PostgreSQL's text form). */
function iso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  const parsed = new Date(
    /^\d{4}-\d{2}-\d{2} /.test(text) ? text.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00") : text,
  );
  return Number.isNaN(parsed.getTime()) ? text : parsed.toISOString();
}

function statusOf(row: { acceptedAt: Date | null; withdrawnAt: Date | null }): InvitationStatus {
  return row.withdrawnAt ? "withdrawn" : row.acceptedAt ? "accepted" : "invited";
}

function invitationView(row: typeof betaInvitations.$inferSelect): BetaInvitation {
  return {
    id: row.id,
    wave_id: row.waveId,
    email: row.email,
    status: statusOf(row),
    invited_at: row.invitedAt.toISOString(),
    last_sent_at: row.lastSentAt.toISOString(),
    sends: row.sends,
    accepted_at: row.acceptedAt?.toISOString() ?? null,
    withdrawn_at: row.withdrawnAt?.toISOString() ?? null,
  };
}

/** Per-person dates of each step, withdrawn invitations excluded; aggregated per wave by the caller. */
const FUNNEL = sql`
  with people as (
    select i.wave_id, i.invited_at, i.accepted_at,
      l.created_at as license_at,
      (select least(
          (select min(m.bound_at) from machines m where m.license_id = l.id),
          (select min(me.at) from machine_events me where me.license_id = l.id and me.kind = 'activated'))
      ) as activation_at,
      (select least(
          (select min(e.started_at) from execution_leases e where e.license_id = l.id),
          (select min(u.created_at) from usage_reports u where u.license_id = l.id))
      ) as execution_at
    from beta_invitations i
    left join licenses l on i.accepted_at is not null and l.customer_id = i.customer_id
    where i.withdrawn_at is null
  )
  select w.id, w.name, w.starts_on::text as date, w.created_at,
    (select count(*)::int from beta_invitations x where x.wave_id = w.id and x.withdrawn_at is not null) as withdrawn,
    count(p.invited_at)::int as admitted_n, min(p.invited_at) as admitted_first, max(p.invited_at) as admitted_last,
    count(p.accepted_at)::int as signed_in_n, min(p.accepted_at) as signed_in_first, max(p.accepted_at) as signed_in_last,
    count(p.license_at)::int as license_n, min(p.license_at) as license_first, max(p.license_at) as license_last,
    count(p.activation_at)::int as activation_n, min(p.activation_at) as activation_first,
      max(p.activation_at) as activation_last,
    count(p.execution_at)::int as execution_n, min(p.execution_at) as execution_first,
      max(p.execution_at) as execution_last
  from beta_waves w left join people p on p.wave_id = w.id`;

function waveView(row: Row): BetaWave {
  const step = (prefix: string) => ({
    count: Number(row[`${prefix}_n`] ?? 0),
    first_at: iso(row[`${prefix}_first`]),
    last_at: iso(row[`${prefix}_last`]),
  });
  return {
    id: String(row.id),
    name: String(row.name),
    date: String(row.date),
    created_at: iso(row.created_at) ?? "",
    withdrawn: Number(row.withdrawn ?? 0),
    funnel: {
      admitted: step("admitted"),
      signed_in: step("signed_in"),
      license_created: step("license"),
      first_activation: step("activation"),
      first_execution: step("execution"),
    },
  };
}

const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class BetaAdmin {
  constructor(private readonly db: Database) {}

  async waves(): Promise<BetaWave[]> {
    const list = await rows(this.db, sql`${FUNNEL} group by w.id order by w.starts_on desc, w.created_at desc`);
    return list.map(waveView);
  }

  async wave(waveId: string): Promise<BetaWave> {
    const [row] = await rows(this.db, sql`${FUNNEL} where w.id = ${waveId}::uuid group by w.id`);
    if (!row) throw new HttpProblem(404, BETA_ERRORS.waveNotFound, "NOT_FOUND");
    return waveView(row);
  }

  async createWave(input: z.output<typeof CreateWaveSchema>, actor: Actor, address: string | null): Promise<BetaWave> {
    const id = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(betaWaves)
        .values({ name: input.name, startsOn: input.date })
        .onConflictDoNothing()
        .returning({ id: betaWaves.id });
      if (!row) throw new HttpProblem(409, BETA_ERRORS.waveNameTaken, "WAVE_NAME_TAKEN");
      await recordEvent(tx, {
        type: "beta.wave_created",
        actor,
        target: { type: "beta_wave", id: row.id },
        before: null,
        after: { name: input.name, date: input.date },
        address,
      });
      return row.id;
    });
    return this.wave(id);
  }

  /** Signups matching the filters, newest first, with the invitation each holds (if any). */
  async candidates(query: z.output<typeof CandidateQuerySchema>) {
    const where: SQL[] = [];
    if (query.platform) where.push(sql`s.platform = ${query.platform}`);
    if (query.role) where.push(sql`s.role = ${query.role}`);
    if (query.experience) where.push(sql`s.ai_experience = ${query.experience}`);
    if (query.interest) where.push(sql`s.interests ilike ${contains(query.interest)}`);
    if (query.from) where.push(sql`s.created_at >= ${query.from}::timestamptz`);
    // A bare day as the upper bound includes that whole day.
    if (query.to)
      where.push(
        /^\d{4}-\d{2}-\d{2}$/.test(query.to)
          ? sql`s.created_at < (${query.to}::date + 1)::timestamptz`
          : sql`s.created_at <= ${query.to}::timestamptz`,
      );
    if (query.uninvited === "true") where.push(sql`i.id is null`);
    const list = await rows(
      this.db,
      sql`select s.id, s.email, s.name, s.role, s.platform, s.interests, s.created_at,
          i.id as invitation_id, i.wave_id, i.accepted_at, i.withdrawn_at
        from signups s left join beta_invitations i on i.email_normalized = s.email_normalized
        ${where.length > 0 ? sql`where ${sql.join(where, sql` and `)}` : sql``}
        order by s.created_at desc, s.id desc limit ${query.limit}`,
    );
    return list.map((row) => ({
      signup_id: String(row.id),
      email: String(row.email),
      name: String(row.name),
      role: String(row.role),
      platform: String(row.platform),
      interests: String(row.interests),
      created_at: iso(row.created_at) ?? "",
      invitation: row.invitation_id
        ? {
            id: String(row.invitation_id),
            wave_id: String(row.wave_id),
            status: (row.withdrawn_at ? "withdrawn" : row.accepted_at ? "accepted" : "invited") as InvitationStatus,
          }
        : null,
    }));
  }

  async invitations(waveId: string): Promise<BetaInvitation[]> {
    await this.wave(waveId);
    const list = await this.db
      .select()
      .from(betaInvitations)
      .where(eq(betaInvitations.waveId, waveId))
      .orderBy(betaInvitations.invitedAt, betaInvitations.id);
    return list.map(invitationView);
  }

  /**
   * Admits the signups into the wave: one invitation (and one mail) per address that holds none yet, in any wave.
   * The rest are counted, not touched.
   */
  async admit(waveId: string, input: z.output<typeof AdmitSchema>, actor: Actor, address: string | null) {
    const ids = [...new Set(input.signup_ids)];
    return this.db.transaction(async (tx) => {
      const [wave] = await tx.select().from(betaWaves).where(eq(betaWaves.id, waveId));
      if (!wave) throw new HttpProblem(404, BETA_ERRORS.waveNotFound, "NOT_FOUND");
      const found = await tx
        .select({ id: signups.id, email: signups.email, emailNormalized: signups.emailNormalized })
        .from(signups)
        .where(inArray(signups.id, ids))
        .orderBy(signups.createdAt);
      const inserted =
        found.length === 0
          ? []
          : await tx
              .insert(betaInvitations)
              .values(
                found.map((signup) => ({
                  waveId,
                  signupId: signup.id,
                  email: signup.email,
                  emailNormalized: signup.emailNormalized,
                })),
              )
              .onConflictDoNothing({ target: betaInvitations.emailNormalized })
              .returning({ id: betaInvitations.id, email: betaInvitations.email, signupId: betaInvitations.signupId });
      for (const invitation of inserted) {
        await recordEvent(tx, {
          type: "beta.invited",
          actor,
          target: { type: "beta_invitation", id: invitation.id },
          before: null,
          after: { wave_id: wave.id, wave_name: wave.name, wave_date: wave.startsOn, signup_id: invitation.signupId },
          address,
          recipient: invitation.email,
        });
      }
      return {
        admitted: inserted.length,
        already_invited: found.length - inserted.length,
        not_found: ids.length - found.length,
      };
    });
  }

  /** Sends the invitation mail again (an open invitation only), audited. */
  async resend(invitationId: string, actor: Actor, address: string | null): Promise<BetaInvitation> {
    return this.db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(betaInvitations)
        .where(eq(betaInvitations.id, invitationId))
        .for("update");
      if (!current) throw new HttpProblem(404, BETA_ERRORS.invitationNotFound, "NOT_FOUND");
      if (current.withdrawnAt) throw new HttpProblem(409, BETA_ERRORS.invitationWithdrawn, "INVITATION_WITHDRAWN");
      if (current.acceptedAt) throw new HttpProblem(409, BETA_ERRORS.invitationAccepted, "INVITATION_ACCEPTED");
      const [wave] = await tx.select().from(betaWaves).where(eq(betaWaves.id, current.waveId));
      const now = new Date();
      const [row] = await tx
        .update(betaInvitations)
        .set({ lastSentAt: now, sends: sql`${betaInvitations.sends} + 1` })
        .where(eq(betaInvitations.id, invitationId))
        .returning();
      await recordEvent(tx, {
        type: "beta.invitation_resent",
        actor,
        target: { type: "beta_invitation", id: invitationId },
        before: { sends: current.sends },
        after: { wave_id: current.waveId, wave_name: wave?.name, wave_date: wave?.startsOn, sends: row!.sends },
        address,
        recipient: current.email,
      });
      return invitationView(row!);
    });
  }

  /** Withdraws the invitation: the person is no longer a tester (isAdmittedTester). Withdrawing twice changes nothing. */
  async withdraw(
    invitationId: string,
    reason: string | undefined,
    actor: Actor,
    address: string | null,
  ): Promise<BetaInvitation> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(betaInvitations)
        .set({ withdrawnAt: new Date() })
        .where(and(eq(betaInvitations.id, invitationId), isNull(betaInvitations.withdrawnAt)))
        .returning();
      if (!row) {
        const [existing] = await tx.select().from(betaInvitations).where(eq(betaInvitations.id, invitationId));
        if (!existing) throw new HttpProblem(404, BETA_ERRORS.invitationNotFound, "NOT_FOUND");
        return invitationView(existing);
      }
      await recordEvent(tx, {
        type: "beta.invitation_withdrawn",
        actor,
        target: { type: "beta_invitation", id: invitationId },
        customerId: row.customerId,
        before: { status: row.acceptedAt ? "accepted" : "invited" },
        after: { status: "withdrawn", wave_id: row.waveId },
        reason: reason || null,
        address,
      });
      return invitationView(row);
    });
  }
}
