import type { SignupRequestSchema } from "@flotilla/contracts/signup";
import type { z } from "zod";
import type { Database } from "../../db/client";
import { normalizeEmail } from "../../lib/privacy";
import { recordEvent } from "../events/record";
import { subscribe } from "../newsletter/service";
import { insertSignup } from "./queries";

export type SignupInput = z.output<typeof SignupRequestSchema>;

/**
 * Stores the answers; a repeat signup with the same email (any case) is acknowledged the same way but changes
 * nothing (no one can overwrite someone else's answers or learn that they signed up). Newsletter opt-in
 * subscribes in the same transaction, so a signup is never half-written.
 */
export async function recordSignup(
  db: Database,
  input: SignupInput,
  address: string | null = null,
): Promise<{ created: boolean }> {
  return db.transaction(async (tx) => {
    const row = {
      email: input.email,
      emailNormalized: normalizeEmail(input.email),
      name: input.name,
      company: input.company,
      role: input.role,
      aiExperience: input.ai_experience,
      platform: input.platform,
      interests: input.interests
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean)
        .join(", "),
      newsletter: input.newsletter,
    };
    const result = await insertSignup(tx, row);
    if (!result.created) return { created: false };
    await recordEvent(tx, {
      type: "signup.created",
      actor: { type: "anonymous" },
      target: { type: "signup", id: result.id! },
      before: null,
      after: {
        email: row.email,
        name: row.name,
        company: row.company,
        role: row.role,
        ai_experience: row.aiExperience,
        platform: row.platform,
        interests: row.interests,
        newsletter: row.newsletter,
      },
      recipient: row.email,
      address,
    });
    if (input.newsletter) await subscribe(tx as unknown as Database, input.email, "signup", address);
    return { created: true };
  });
}
