/** The email rule every form shares, free of zod so that small islands can check it (the Stay Updated box). */

/** The spec's "simple {email} shape": something@something.something, no spaces. */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The same shape anywhere inside a text: whatever the service would accept as an address. The audit log keeps no
 * text that matches it (decision 0053); migration 0012 uses the same pattern in SQL.
 */
export const EMAIL_WITHIN = /[^\s@]+@[^\s@]+\.[^\s@]+/;

/** Spec section 5, verbatim. */
export const EMAIL_MESSAGES = {
  emailRequired: "Email is required",
  emailInvalid: "Please enter a valid email address",
} as const;

/** The message for what was typed, or null when it has the shape. */
export function emailProblem(value: string): string | null {
  const email = value.trim();
  if (!email) return EMAIL_MESSAGES.emailRequired;
  return EMAIL_SHAPE.test(email) ? null : EMAIL_MESSAGES.emailInvalid;
}
