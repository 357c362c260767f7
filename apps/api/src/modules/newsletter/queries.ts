import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { newsletterSubscribers } from "../../db/schema";

/**
 * Subscribes a new address; one row per email. An address that unsubscribed stays unsubscribed: a form anyone
 * can fill in must not undo someone's "stop sending me this" (coming back takes a confirmed opt-in).
 */
export async function insertSubscriber(
  db: Pick<Database, "insert">,
  row: { email: string; emailNormalized: string; source: string },
): Promise<{ created: boolean }> {
  const inserted = await db
    .insert(newsletterSubscribers)
    .values(row)
    .onConflictDoNothing({ target: newsletterSubscribers.emailNormalized })
    .returning({ id: newsletterSubscribers.id });
  return { created: inserted.length === 1 };
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
