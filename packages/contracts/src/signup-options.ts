/**
 * Spec sections 3 and 5: what the early-access form offers and says, free of zod. The form renders from this module
 * and loads the schema (signup.ts) only to validate, so opening it on a content page does not wait for zod.
 */
import { EMAIL_MESSAGES } from "./email";

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

export type SignupFields =
  | "email"
  | "name"
  | "company"
  | "role"
  | "ai_experience"
  | "platform"
  | "interests"
  | "newsletter";

export function joinInterests(selected: readonly string[]): string {
  return INTEREST_OPTIONS.filter((option) => selected.includes(option)).join(", ");
}
