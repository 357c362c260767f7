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
