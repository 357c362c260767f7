import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import { NewsletterSubscribeSchema, NewsletterUnsubscribeQuerySchema } from "@flotilla/contracts/newsletter";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import type { Database } from "../../db/client";
import { maskEmail } from "../../lib/privacy";
import { HttpProblem } from "../../plugins/errors";
import { subscribe, unsubscribe } from "./service";

const OkSchema = z.object({ success: z.literal(true), message: z.string() });

export function registerNewsletterRoutes(app: FastifyInstance, deps: { db: Database; config: Config; secret: string }) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    "/api/newsletter",
    {
      schema: {
        tags: ["Early access"],
        summary: "Subscribe an email address to the newsletter",
        body: NewsletterSubscribeSchema,
        response: { 200: OkSchema, 400: ApiErrorSchema, 429: ApiErrorSchema },
      },
      config: { rateLimit: { max: deps.config.rateLimits.signupPerMinute, timeWindow: "1 minute" } },
    },
    async (request) => {
      await subscribe(deps.db, request.body.email, request.body.source);
      request.log.info({ email: maskEmail(request.body.email) }, "newsletter subscription");
      return { success: true as const, message: "You're subscribed." };
    },
  );

  api.get(
    "/api/newsletter/unsubscribe",
    {
      schema: {
        tags: ["Early access"],
        summary: "Unsubscribe with the token from a newsletter link",
        querystring: NewsletterUnsubscribeQuerySchema,
        response: { 200: OkSchema, 400: ApiErrorSchema },
      },
      config: { rateLimit: { max: deps.config.rateLimits.perMinute, timeWindow: "1 minute" } },
    },
    async (request) => {
      const outcome = await unsubscribe(deps.db, deps.secret, request.query.token);
      if (outcome === "invalid")
        throw new HttpProblem(400, "This unsubscribe link is invalid or has expired.", "INVALID_TOKEN");
      return {
        success: true as const,
        message: outcome === "already" ? "You were already unsubscribed." : "You're unsubscribed.",
      };
    },
  );
}
