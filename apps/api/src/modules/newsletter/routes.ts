import {
  NEWSLETTER_MESSAGES,
  NewsletterConfirmSchema,
  NewsletterSubscribeSchema,
  NewsletterUnsubscribeQuerySchema,
} from "@flotilla/contracts/newsletter";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import type { Database } from "../../db/client";
import { maskEmail } from "../../lib/privacy";
import { refusals } from "../../plugins/answers";
import { HttpProblem } from "../../plugins/errors";
import { confirmSubscription, subscribe, unsubscribe } from "./service";

const OkSchema = z.object({ success: z.literal(true), message: z.string() });
const tooMany = (limit: string) =>
  `RATE_LIMITED: too many requests from this address this minute (${limit}); retry after Retry-After.`;

export function registerNewsletterRoutes(app: FastifyInstance, deps: { db: Database; config: Config; secret: string }) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    "/api/newsletter",
    {
      schema: {
        tags: ["Early access"],
        summary: "Subscribe an email address to the newsletter",
        body: NewsletterSubscribeSchema,
        response: {
          200: OkSchema,
          ...refusals(
            {
              400: "VALIDATION_ERROR: the email or source is missing or invalid; MALFORMED_JSON: the body is not JSON.",
              429: tooMany("RATE_LIMIT_SIGNUP_PER_MINUTE"),
            },
            { body: true },
          ),
        },
      },
      config: { rateLimit: { max: deps.config.rateLimits.signupPerMinute, timeWindow: "1 minute" } },
    },
    async (request) => {
      await subscribe(deps.db, request.body.email, request.body.source, request.ip);
      request.log.info({ email: maskEmail(request.body.email) }, "newsletter subscription");
      return { success: true as const, message: NEWSLETTER_MESSAGES.checkInbox };
    },
  );

  api.get(
    "/api/newsletter/unsubscribe",
    {
      schema: {
        tags: ["Early access"],
        summary: "Unsubscribe with the token from a newsletter link",
        querystring: NewsletterUnsubscribeQuerySchema,
        response: {
          200: OkSchema,
          ...refusals({
            400: "INVALID_TOKEN: the link is not one of ours or names no subscriber; VALIDATION_ERROR: the token is missing or of the wrong length.",
            429: tooMany("RATE_LIMIT_PER_MINUTE"),
          }),
        },
      },
      config: { rateLimit: { max: deps.config.rateLimits.perMinute, timeWindow: "1 minute" } },
    },
    async (request) => {
      const outcome = await unsubscribe(deps.db, deps.secret, request.query.token, request.ip);
      if (outcome === "invalid")
        throw new HttpProblem(400, "This unsubscribe link is invalid or has expired.", "INVALID_TOKEN");
      return {
        success: true as const,
        message: outcome === "already" ? "You were already unsubscribed." : "You're unsubscribed.",
      };
    },
  );

  api.post(
    "/api/newsletter/confirm",
    {
      schema: {
        tags: ["Early access"],
        summary: "Confirm a newsletter subscription with the token from the confirmation mail",
        description:
          "Double opt-in: an address counts as subscribed only once it confirms. Only the latest confirmation link works, for 7 days; a POST (the page's button), so a mail scanner that opens links confirms nothing.",
        body: NewsletterConfirmSchema,
        response: {
          200: OkSchema,
          ...refusals(
            {
              400: "INVALID_TOKEN: the link is not one of ours, is older than 7 days, or a newer one was sent since; VALIDATION_ERROR: the token is missing or of the wrong length; MALFORMED_JSON: the body is not JSON.",
              429: tooMany("RATE_LIMIT_SIGNUP_PER_MINUTE"),
            },
            { body: true },
          ),
        },
      },
      config: { rateLimit: { max: deps.config.rateLimits.signupPerMinute, timeWindow: "1 minute" } },
    },
    async (request) => {
      const outcome = await confirmSubscription(deps.db, deps.secret, request.body.token, request.ip);
      if (outcome === "invalid") throw new HttpProblem(400, NEWSLETTER_MESSAGES.invalidConfirmation, "INVALID_TOKEN");
      return {
        success: true as const,
        message: outcome === "already" ? NEWSLETTER_MESSAGES.alreadyConfirmed : NEWSLETTER_MESSAGES.confirmed,
      };
    },
  );
}
