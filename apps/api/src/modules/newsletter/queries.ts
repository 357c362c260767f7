import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { newsletterSubscribers } from "../../db/schema";

/** Subscribe, or re-subscribe someone who had left; one row per email. */
export async function upsertSubscriber(
  db: Pick<Database, "insert">,
  row: { email: string; emailNormalized: string; source: string },
): Promise<{ id: string }> {
  const [result] = await db
    .insert(newsletterSubscribers)
    .values(row)
    .onConflictDoUpdate({
      target: newsletterSubscribers.emailNormalized,
      set: { unsubscribedAt: null, updatedAt: sql`now()` },
    })
    .returning({ id: newsletterSubscribers.id });
  return { id: result!.id };
}

export async function markUnsubscribed(db: Database, id: string): Promise<boolean> {
  const rows = await db
    .update(newsletterSubscribers)
    .set({ unsubscribedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(newsletterSubscribers.id, id), isNull(newsletterSubscribers.unsubscribedAt)))
    .returning({ id: newsletterSubscribers.id });
  return rows.length > 0;
}

export async function findSubscriber(db: Database, id: string) {
  const [row] = await db.select().from(newsletterSubscribers).where(eq(newsletterSubscribers.id, id)).limit(1);
  return row;
}

export async function listSubscribers(db: Database) {
  return db.select().from(newsletterSubscribers).orderBy(newsletterSubscribers.createdAt);
}
