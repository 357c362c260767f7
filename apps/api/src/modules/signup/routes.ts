import { SignupRequestSchema, SignupResponseSchema } from "@flotilla/contracts/signup";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Config } from "../../config";
import type { Database } from "../../db/client";
import { maskEmail } from "../../lib/privacy";
import { refusals } from "../../plugins/answers";
import { recordSignup } from "./service";

export function registerSignupRoutes(app: FastifyInstance, deps: { db: Database; config: Config }) {
  app.withTypeProvider<ZodTypeProvider>().post(
    "/api/signup",
    {
      schema: {
        tags: ["Early access"],
        summary: "Join the early-access programme",
        description:
          "Stores the answers of the early-access form. A repeat signup with the same email (any case) gets the same answer but changes nothing, so nobody can overwrite someone else's answers and the response never reveals who signed up.",
        body: SignupRequestSchema,
        response: {
          200: SignupResponseSchema,
          ...refusals(
            {
              400: "VALIDATION_ERROR: a field is missing or not one of its allowed values (the error names it); MALFORMED_JSON: the body is not JSON.",
              429: "RATE_LIMITED: too many signups from this address this minute (RATE_LIMIT_SIGNUP_PER_MINUTE); retry after Retry-After.",
            },
            { body: true },
          ),
        },
      },
      config: { rateLimit: { max: deps.config.rateLimits.signupPerMinute, timeWindow: "1 minute" } },
    },
    async (request) => {
      const { created } = await recordSignup(deps.db, request.body, request.ip);
      request.log.info({ email: maskEmail(request.body.email), created }, "early-access signup");
      return { success: true as const, message: "You're on the list. We'll be in touch soon." };
    },
  );
}
