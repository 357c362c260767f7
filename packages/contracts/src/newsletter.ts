import { z } from "zod";
import { EmailSchema } from "./signup";

export const NEWSLETTER_SOURCES = ["blog", "signup", "footer"] as const;

export const NewsletterSubscribeSchema = z.strictObject({
  email: EmailSchema,
  source: z.enum(NEWSLETTER_SOURCES).default("blog"),
});
export type NewsletterSubscribe = z.input<typeof NewsletterSubscribeSchema>;

export const NewsletterUnsubscribeQuerySchema = z.strictObject({
  token: z.string().min(10).max(200),
});

export const NewsletterConfirmSchema = z.strictObject({
  token: z.string().min(10).max(200),
});

export const NEWSLETTER_MESSAGES = {
  checkInbox: "Almost there: check your inbox and confirm your subscription.",
  confirmed: "You're subscribed.",
  alreadyConfirmed: "You're already subscribed.",
  invalidConfirmation: "This confirmation link is invalid or has expired.",
} as const;
