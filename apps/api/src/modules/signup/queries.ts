import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { signups } from "../../db/schema";

export interface SignupRow {
  email: string;
  emailNormalized: string;
  name: string;
  company: string;
  role: string;
  aiExperience: string;
  platform: string;
  interests: string;
  newsletter: boolean;
}

/** Insert, or update the answers of the same email (case-insensitive) in one statement: no race, no duplicate. */
export async function upsertSignup(db: Pick<Database, "insert">, row: SignupRow): Promise<{ created: boolean }> {
  const [result] = await db
    .insert(signups)
    .values(row)
    .onConflictDoUpdate({
      target: signups.emailNormalized,
      set: {
        email: row.email,
        name: row.name,
        company: row.company,
        role: row.role,
        aiExperience: row.aiExperience,
        platform: row.platform,
        interests: row.interests,
        newsletter: row.newsletter,
        updatedAt: sql`now()`,
      },
    })
    .returning({ created: sql<boolean>`(xmax = 0)` });
  return { created: Boolean(result?.created) };
}

export async function listSignups(db: Database) {
  return db.select().from(signups).orderBy(signups.createdAt);
}
