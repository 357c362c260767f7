/** Spec sections 3 and 5: the early-access signup, shared by the form, the API and the tests. */
import { z } from "zod";
import { EMAIL_MESSAGES, EMAIL_SHAPE } from "./email";
import { isSafeDisplayText, UNSAFE_TEXT_MESSAGE } from "./text";

export const ROLE_OPTIONS = [
  "Software Developer",
  "Product Manager",
  "Tech Lead",
  "Software Architect",
  "DevOps Engineer",
  "UX/UI Designer",
  "Founder/CEO",
  "Other",
] as const;

/** Stored as "Label - description". */
export const AI_EXPERIENCE_OPTIONS = [
  { label: "Beginner", description: "Just getting started with AI tools" },
  { label: "Intermediate", description: "Some experience with AI in development" },
  { label: "Advanced", description: "Regularly use AI for complex tasks" },
  { label: "Expert", description: "Building AI-powered applications" },
] as const;

/** Stored as "Label - description". */
export const PLATFORM_OPTIONS = [
  { label: "Web Application", description: "Use it from any browser" },
  { label: "Windows Desktop", description: "Native app for Windows" },
  { label: "macOS Desktop", description: "Native app for macOS (beta now)" },
  { label: "All Platforms", description: "I want it everywhere I work" },
] as const;

export const INTEREST_OPTIONS = [
  "AI Agent Coordination",
  "Task Automation",
  "Unified Memory",
  "Git Integration",
  "Enterprise Features",
  "API Development",
  "Custom Integrations",
  "Performance Optimization",
] as const;

export function optionValue(option: { label: string; description: string }): string {
  return `${option.label} - ${option.description}`;
}

export const AI_EXPERIENCE_VALUES = AI_EXPERIENCE_OPTIONS.map(optionValue) as [string, ...string[]];
export const PLATFORM_VALUES = PLATFORM_OPTIONS.map(optionValue) as [string, ...string[]];

/** Spec section 5, verbatim. */
export const SIGNUP_MESSAGES = {
  ...EMAIL_MESSAGES,
  nameRequired: "Name is required",
  roleRequired: "Please select your role",
  aiExperienceRequired: "Please select your AI experience level",
  platformRequired: "Please select your preferred platform",
} as const;

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
export type SignupFields =
  | "email"
  | "name"
  | "company"
  | "role"
  | "ai_experience"
  | "platform"
  | "interests"
  | "newsletter";

export const SignupResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
});

export function joinInterests(selected: readonly string[]): string {
  return INTEREST_OPTIONS.filter((option) => selected.includes(option)).join(", ");
}

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
