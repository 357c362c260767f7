/**
 * Who is an admin: an address in ADMIN_EMAILS (configuration, read at start), or one granted from the console or
 * with the admin CLI (stored in `admins`). Checked on the server for every /api/admin/* request, from the signed-in
 * customer's email.
 *
 * From the console (decision 0047), an admin grants and revokes the role, with a reason, recorded in the audit log
 * (`admin.granted`, `admin.revoked`: actor, target, reason), which names the grant by its id, never the address.
 * Revoking is refused for: an address in ADMIN_EMAILS (configuration is changed where it lives); the admin's own
 * address (nobody locks themselves out with a click: another admin does it); and the last admin. The last check runs in the transaction, with every granted row locked,
 * and re-checks that the actor is still an admin, so two admins revoking each other at once cannot leave none.
 */
import { ADMIN_ERRORS, type AdminEntry } from "@flotilla/contracts/admin";
import { asc, eq, sql } from "drizzle-orm";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Database } from "../../db/client";
import { admins, customers } from "../../db/schema";
import { normalizeEmail } from "../../lib/privacy";
import { requireSession } from "../../plugins/auth-guard";
import { HttpProblem } from "../../plugins/errors";
import type { AuthService } from "../auth/service";
import { type Actor, recordEvent } from "../events/record";

export type AdminSource = "config" | "granted";

export class AdminRoles {
  private readonly configured: Set<string>;

  constructor(
    private readonly db: Database,
    configured: string[],
  ) {
    this.configured = new Set(configured.map(normalizeEmail));
  }

  async sourceOf(email: string): Promise<AdminSource | null> {
    const normalized = normalizeEmail(email);
    if (this.configured.has(normalized)) return "config";
    const [row] = await this.db.select().from(admins).where(eq(admins.emailNormalized, normalized));
    return row ? "granted" : null;
  }

  async isAdmin(email: string): Promise<boolean> {
    return (await this.sourceOf(email)) !== null;
  }

  /** Configured admins first (in configuration order), then granted ones, oldest first. */
  async list(): Promise<AdminEntry[]> {
    const rows = await this.db.select().from(admins).orderBy(asc(admins.grantedAt), asc(admins.emailNormalized));
    return [
      ...[...this.configured].map((email) => ({
        id: null,
        email,
        source: "config" as const,
        granted_by: null,
        granted_at: null,
      })),
      ...rows
        .filter((row) => !this.configured.has(row.emailNormalized))
        .map((row) => ({
          id: row.id,
          email: row.email,
          source: "granted" as const,
          granted_by: row.grantedBy,
          granted_at: row.grantedAt.toISOString(),
        })),
    ];
  }

  /** False when the address is an admin already (granted, or configured). */
  async grant(email: string, actor: Actor, context: ChangeContext): Promise<boolean> {
    if (this.configured.has(normalizeEmail(email))) return false;
    return grantAdmin(this.db, email, actor, context);
  }

  /** Revokes a granted admin; refuses (HttpProblem) what the rules above refuse. */
  async revoke(email: string, actor: Actor & { email: string }, context: ChangeContext): Promise<void> {
    const target = normalizeEmail(email);
    const self = normalizeEmail(actor.email);
    if (this.configured.has(target)) throw new HttpProblem(409, ADMIN_ERRORS.adminConfigured, "ADMIN_CONFIGURED");
    if (target === self) throw new HttpProblem(409, ADMIN_ERRORS.adminSelf, "ADMIN_SELF");
    await this.db.transaction(async (tx) => {
      const granted = await tx.select().from(admins).for("update");
      if (!this.configured.has(self) && !granted.some((row) => row.emailNormalized === self)) {
        throw new HttpProblem(403, ADMIN_ERRORS.forbidden, "FORBIDDEN");
      }
      const row = granted.find((candidate) => candidate.emailNormalized === target);
      if (!row) throw new HttpProblem(404, ADMIN_ERRORS.adminNotFound, "NOT_FOUND");
      const remaining = new Set([...this.configured, ...granted.map((r) => r.emailNormalized)]);
      remaining.delete(target);
      if (remaining.size === 0) throw new HttpProblem(409, ADMIN_ERRORS.adminLast, "LAST_ADMIN");
      await removeAdminRow(tx, row, actor, context);
    });
  }
}

export interface ChangeContext {
  reason?: string | null;
  /** The client address of the request (request.ip), when a request made the change. */
  address?: string | null;
}

type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];

/**
 * The accounts signed in with the address, by id: who the grant is for, as the log can say it (it never holds the
 * address; decision 0053). Empty for an address that has not signed in yet.
 */
async function accountsOf(tx: Tx, normalized: string): Promise<string[]> {
  const rows = await tx
    .select({ id: customers.id })
    .from(customers)
    .where(sql`lower(${customers.email}) = ${normalized}`)
    .orderBy(asc(customers.createdAt));
  return rows.map((row) => row.id);
}

async function removeAdminRow(tx: Tx, row: typeof admins.$inferSelect, actor: Actor, context: ChangeContext) {
  await tx.delete(admins).where(eq(admins.emailNormalized, row.emailNormalized));
  await recordEvent(tx, {
    type: "admin.revoked",
    actor,
    // The grant's id and the grantee's accounts: the log keeps no address (decision 0053).
    target: { type: "admin", id: row.id },
    before: {
      email: row.email,
      customer_ids: await accountsOf(tx, row.emailNormalized),
      granted_by: row.grantedBy,
      granted_at: row.grantedAt.toISOString(),
    },
    after: null,
    reason: context.reason ?? null,
    address: context.address ?? null,
  });
}

export async function grantAdmin(
  db: Database,
  email: string,
  actor: Actor,
  context: ChangeContext = {},
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(admins)
      .values({
        emailNormalized: normalizeEmail(email),
        email: email.trim(),
        grantedBy: actor.email ?? actor.id ?? actor.type,
      })
      .onConflictDoNothing()
      .returning();
    const [grant] = inserted;
    if (!grant) return false;
    await recordEvent(tx, {
      type: "admin.granted",
      actor,
      target: { type: "admin", id: grant.id },
      before: null,
      after: { email: email.trim(), customer_ids: await accountsOf(tx, grant.emailNormalized) },
      reason: context.reason ?? null,
      address: context.address ?? null,
    });
    return true;
  });
}

/** The admin CLI's revoke (the operator's own hand on the database): no rules but that the row exists. */
export async function revokeAdmin(
  db: Database,
  email: string,
  actor: Actor,
  context: ChangeContext = {},
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(admins)
      .where(eq(admins.emailNormalized, normalizeEmail(email)))
      .for("update");
    if (!row) return false;
    await removeAdminRow(tx, row, actor, context);
    return true;
  });
}

/** The session guard, then the role: 401 without a valid session, 403 for a customer who is not an admin. */
export function requireAdmin(auth: AuthService, roles: AdminRoles) {
  const session = requireSession(auth);
  return async function adminGuard(request: FastifyRequest, reply: FastifyReply) {
    await session(request, reply);
    if (reply.sent || !request.session) return;
    const source = await roles.sourceOf(request.session.customer.email);
    if (!source) return reply.code(403).send({ success: false, error: ADMIN_ERRORS.forbidden, code: "FORBIDDEN" });
    request.adminSource = source;
  };
}

declare module "fastify" {
  interface FastifyRequest {
    adminSource?: AdminSource;
  }
}
