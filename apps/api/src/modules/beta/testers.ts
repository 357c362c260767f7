/**
 * Who is a beta tester (issue 36, decision 0062): someone whose account's address is exactly the address of an
 * invitation that was accepted and not withdrawn. Addresses are compared normalised (trimmed, lower-cased) and whole,
 * never searched for inside other text: ann@ex.co is not inside joann@ex.com (decisions 0051–0053).
 *
 * `isAdmittedTester` is what the distribution side asks before it shows the beta channel's downloads.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { betaInvitations } from "../../db/schema";
import { normalizeEmail } from "../../lib/privacy";
import { recordEvent, type Tx } from "../events/record";

type Rows = { rows: Record<string, unknown>[] };

/** Whether the customer holds an accepted, not withdrawn invitation for their own (current) address. */
export async function isAdmittedTester(db: Pick<Database, "execute">, customerId: string): Promise<boolean> {
  const result = (await db.execute(sql`select exists (
      select 1 from customers c
      join beta_invitations i on i.email_normalized = lower(btrim(c.email))
      where c.id = ${customerId}::uuid and i.accepted_at is not null and i.withdrawn_at is null
    ) as admitted`)) as unknown as Rows;
  return result.rows[0]?.admitted === true;
}

/**
 * A sign-in with `customer.email` accepts the open invitation of exactly that address, in the sign-in's transaction;
 * recorded as beta.invitation_accepted. A withdrawn or already accepted invitation is left as it is.
 */
export async function acceptInvitation(
  tx: Tx & Pick<Database, "update">,
  customer: { id: string; email: string },
  now: Date,
): Promise<string[]> {
  const accepted = await tx
    .update(betaInvitations)
    .set({ acceptedAt: now, customerId: customer.id })
    .where(
      and(
        eq(betaInvitations.emailNormalized, normalizeEmail(customer.email)),
        isNull(betaInvitations.acceptedAt),
        isNull(betaInvitations.withdrawnAt),
      ),
    )
    .returning({ id: betaInvitations.id, waveId: betaInvitations.waveId });
  for (const invitation of accepted) {
    await recordEvent(tx, {
      type: "beta.invitation_accepted",
      actor: { type: "customer", id: customer.id },
      target: { type: "beta_invitation", id: invitation.id },
      customerId: customer.id,
      before: null,
      after: { wave_id: invitation.waveId, accepted_at: now.toISOString() },
    });
  }
  return accepted.map((invitation) => invitation.id);
}
