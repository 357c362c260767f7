/**
 * Who is an admin: an address in ADMIN_EMAILS (configuration, read at start), or one granted with the admin CLI
 * (stored in `admins`). Checked on the server for every /api/admin/* request, from the signed-in customer's email.
 */
import { ADMIN_ERRORS } from "@flotilla/contracts/admin";
import { eq } from "drizzle-orm";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Database } from "../../db/client";
import { admins } from "../../db/schema";
import { normalizeEmail } from "../../lib/privacy";
import { requireSession } from "../../plugins/auth-guard";
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
}

export async function grantAdmin(db: Database, email: string, actor: Actor): Promise<boolean> {
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(admins)
      .values({ emailNormalized: normalizeEmail(email), email: email.trim(), grantedBy: actor.id ?? actor.type })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) return false;
    await recordEvent(tx, {
      type: "admin.granted",
      actor,
      target: { type: "admin", id: normalizeEmail(email) },
      before: null,
      after: { email: email.trim() },
    });
    return true;
  });
}

export async function revokeAdmin(db: Database, email: string, actor: Actor): Promise<boolean> {
  return db.transaction(async (tx) => {
    const deleted = await tx
      .delete(admins)
      .where(eq(admins.emailNormalized, normalizeEmail(email)))
      .returning();
    if (deleted.length === 0) return false;
    await recordEvent(tx, {
      type: "admin.revoked",
      actor,
      target: { type: "admin", id: normalizeEmail(email) },
      before: { email: deleted[0]!.email, granted_by: deleted[0]!.grantedBy },
      after: null,
    });
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
