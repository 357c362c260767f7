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

/**
 * Inserts the answers unless this email (case-insensitive) already signed up, in one statement: no race, no
 * duplicate. A repeat never changes stored answers — anyone can type anyone's address, so an unproven request
 * must not overwrite what the owner said.
 */
export async function insertSignup(
  db: Pick<Database, "insert">,
  row: SignupRow,
): Promise<{ created: boolean; id?: string }> {
  const inserted = await db
    .insert(signups)
    .values(row)
    .onConflictDoNothing({ target: signups.emailNormalized })
    .returning({ id: signups.id });
  return { created: inserted.length === 1, id: inserted[0]?.id };
}

export async function listSignups(db: Database) {
  return db.select().from(signups).orderBy(signups.createdAt);
}
