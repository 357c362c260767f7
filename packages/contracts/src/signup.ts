/**
 * Spec sections 3 and 5: the early-access signup's schema, shared by the form (on submit), the API and the tests. What
 * the form renders (options, messages) is in signup-options.ts, free of zod; this module re-exports it.
 */
import { z } from "zod";
import { EMAIL_SHAPE } from "./email";
import {
  AI_EXPERIENCE_VALUES,
  INTEREST_OPTIONS,
  PLATFORM_VALUES,
  ROLE_OPTIONS,
  SIGNUP_MESSAGES,
  type SignupFields,
} from "./signup-options";
import { isSafeDisplayText, UNSAFE_TEXT_MESSAGE } from "./text";

export * from "./signup-options";

export { EMAIL_SHAPE };

const requiredText = (message: string, max: number) =>
  z.string({ error: message }).trim().min(1, message).max(max, `Must be at most ${max} characters`);
const displayText = (message: string, max: number) =>
  requiredText(message, max).refine(isSafeDisplayText, `Name ${UNSAFE_TEXT_MESSAGE}`);

export const EmailSchema = requiredText(SIGNUP_MESSAGES.emailRequired, 254).regex(
  EMAIL_SHAPE,
  SIGNUP_MESSAGES.emailInvalid,
);

const oneOf = (values: readonly string[], message: string) =>
  z.string({ error: message }).refine((value) => values.includes(value), message);

/** Interests arrive comma-joined ("A, B"); each must be one of the options. */
const InterestsSchema = z
  .string()
  .max(1000)
  .default("")
  .refine(
    (value) =>
      value.trim() === "" ||
      value.split(",").every((item) => (INTEREST_OPTIONS as readonly string[]).includes(item.trim())),
    "Unknown interest",
  );

export const SignupRequestSchema = z.strictObject({
  email: EmailSchema,
  name: displayText(SIGNUP_MESSAGES.nameRequired, 120),
  company: z
    .string()
    .trim()
    .max(120, "Must be at most 120 characters")
    .refine(isSafeDisplayText, `Company ${UNSAFE_TEXT_MESSAGE}`)
    .default(""),
  role: oneOf(ROLE_OPTIONS, SIGNUP_MESSAGES.roleRequired),
  ai_experience: oneOf(AI_EXPERIENCE_VALUES, SIGNUP_MESSAGES.aiExperienceRequired),
  platform: oneOf(PLATFORM_VALUES, SIGNUP_MESSAGES.platformRequired),
  interests: InterestsSchema,
  newsletter: z.boolean().default(true),
});
export type SignupRequest = z.input<typeof SignupRequestSchema>;

export const SignupResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
});

/** Client-side validation on submit: the first message per field, from the same schema the server uses. */
export function validateSignup(values: SignupRequest): Partial<Record<SignupFields, string>> {
  const result = SignupRequestSchema.safeParse(values);
  if (result.success) return {};
  const errors: Partial<Record<SignupFields, string>> = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0] as SignupFields | undefined;
    if (field && !errors[field]) errors[field] = issue.message;
  }
  return errors;
}
