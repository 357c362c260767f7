/** Every query of the sign-in module: customers, sessions and login transactions. */
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { customers, erasedSessions, loginTransactions, sessions } from "../../db/schema";

export type CustomerRow = typeof customers.$inferSelect;

export async function insertLoginTransaction(
  db: Database,
  row: {
    stateHash: string;
    codeVerifier: string;
    nonce: string;
    returnPath: string;
    browserHash: string;
    expiresAt: Date;
  },
) {
  await db.insert(loginTransactions).values(row);
}

/**
 * Marks the transaction used and returns it — once, and only for the browser that started it. Unknown, expired,
 * used states and other browsers get nothing (and leave the transaction as it was).
 */
export async function consumeLoginTransaction(db: Database, stateHash: string, browserHash: string, now: Date) {
  const [row] = await db
    .update(loginTransactions)
    .set({ consumedAt: now })
    .where(
      and(
        eq(loginTransactions.stateHash, stateHash),
        eq(loginTransactions.browserHash, browserHash),
        isNull(loginTransactions.consumedAt),
        gt(loginTransactions.expiresAt, now),
      ),
    )
    .returning();
  return row ?? null;
}

/** True when a live, unused transaction has this state (used to tell "another browser" from "unknown"). */
export async function liveLoginTransactionExists(db: Database, stateHash: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: loginTransactions.id })
    .from(loginTransactions)
    .where(
      and(
        eq(loginTransactions.stateHash, stateHash),
        isNull(loginTransactions.consumedAt),
        gt(loginTransactions.expiresAt, now),
      ),
    );
  return Boolean(row);
}

export async function upsertCustomer(
  db: Database,
  identity: { issuer: string; subject: string; email: string; name: string; avatarUrl: string | null },
  now: Date,
): Promise<CustomerRow> {
  const [row] = await db
    .insert(customers)
    .values({ ...identity, lastSignInAt: now })
    .onConflictDoUpdate({
      target: [customers.issuer, customers.subject],
      set: {
        email: identity.email,
        name: identity.name,
        avatarUrl: identity.avatarUrl,
        lastSignInAt: now,
        updatedAt: now,
      },
    })
    .returning();
  if (!row) throw new Error("customer upsert returned no row");
  return row;
}

export async function findCustomer(db: Database, id: string): Promise<CustomerRow | null> {
  const [row] = await db.select().from(customers).where(eq(customers.id, id));
  return row ?? null;
}

export interface NewSession {
  tokenHash: string;
  customerId: string;
  expiresAt: Date;
  absoluteExpiresAt: Date;
  browserHash: string | null;
}

export async function insertSession(db: Database, row: NewSession): Promise<void> {
  await db.insert(sessions).values(row);
}

/** The live session for a token hash, with its customer: not revoked, not expired, within its absolute lifetime. */
export async function findLiveSession(db: Database, tokenHash: string, now: Date) {
  const [row] = await db
    .select({ session: sessions, customer: customers })
    .from(sessions)
    .innerJoin(customers, eq(customers.id, sessions.customerId))
    .where(
      and(
        eq(sessions.tokenHash, tokenHash),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, now),
        gt(sessions.absoluteExpiresAt, now),
      ),
    );
  return row ?? null;
}

/** When a session under this token hash ended, or ends: whatever its state (null: no such session is kept). */
export async function findSessionEnd(db: Database, tokenHash: string) {
  const [row] = await db
    .select({
      revokedAt: sessions.revokedAt,
      expiresAt: sessions.expiresAt,
      absoluteExpiresAt: sessions.absoluteExpiresAt,
    })
    .from(sessions)
    .where(eq(sessions.tokenHash, tokenHash));
  return row ?? null;
}

/** Whether an erasure ended a session under this token hash that would not have ended yet (decision 0056). */
export async function erasedSessionExists(db: Database, tokenHash: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ endsAt: erasedSessions.endsAt })
    .from(erasedSessions)
    .where(and(eq(erasedSessions.tokenHash, tokenHash), gt(erasedSessions.endsAt, now)));
  return Boolean(row);
}

/** Sign out everywhere: revokes every live session of the customer; returns how many. */
export async function revokeCustomerSessions(db: Database, customerId: string, now: Date): Promise<number> {
  const rows = await db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.customerId, customerId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  return rows.length;
}

/** Sliding expiry: a used session lives another full term. */
export async function touchSession(db: Database, id: string, now: Date, expiresAt: Date) {
  await db.update(sessions).set({ lastUsedAt: now, expiresAt }).where(eq(sessions.id, id));
}

/** Revokes a live session; true when this call revoked it (false if it was already gone). */
export async function revokeSession(db: Database, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  return rows.length === 1;
}

/** Revokes the old session and creates its replacement atomically: a token is rotated at most once. */
export async function rotateSession(db: Database, oldId: string, replacement: NewSession, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const revoked = await tx
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(eq(sessions.id, oldId), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
      .returning({ id: sessions.id });
    if (revoked.length !== 1) return false;
    await tx.insert(sessions).values(replacement);
    return true;
  });
}

export async function countSessions(db: Database): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(sessions);
  return row?.n ?? 0;
}
