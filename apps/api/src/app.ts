import compress from "@fastify/compress";
import { ApiErrorSchema, ERROR_CODES } from "@flotilla/contracts/api-errors";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "./config";
import { type DatabaseHandle, openDatabase } from "./db/client";
import { loadOrCreateSecret } from "./lib/secrets";
import { mountDevelopmentIssuer } from "./modules/auth/dev-issuer";
import { createRelyingParty, type RelyingPartyOptions } from "./modules/auth/identity-provider";
import { registerAuthRoutes } from "./modules/auth/routes";
import { AuthService } from "./modules/auth/service";
import { CustomerLicenses } from "./modules/licenses/customer-licenses";
import { LicensingService } from "./modules/licenses/licensing-service";
import { registerLicensingRoutes } from "./modules/licenses/routes";
import { createLicenseSigner } from "./modules/licenses/signing";
import { registerNewsletterRoutes } from "./modules/newsletter/routes";
import { registerSignupRoutes } from "./modules/signup/routes";
import { frameworkErrors, registerErrorHandler, registerNulGuard } from "./plugins/errors";
import { registerOpenApi } from "./plugins/openapi";
import { registerRateLimit } from "./plugins/rate-limit";
import { registerSecurity } from "./plugins/security";
import { sitePlugin } from "./plugins/site";

declare module "fastify" {
  interface FastifyInstance {
    database: DatabaseHandle;
    auth: AuthService;
    licensing: LicensingService;
  }
}

/** Query strings can carry tokens (unsubscribe links): logs keep the path only. */
function pathOnly(url: string): string {
  const at = url.indexOf("?");
  return at === -1 ? url : `${url.slice(0, at)}?…`;
}

/** Builds the whole service without listening: the server entry and the tests both use it. */
export async function buildApp(config: Config): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      config.logLevel === "silent"
        ? false
        : {
            level: config.logLevel,
            redact: ["req.headers.authorization", "req.headers.cookie"],
            serializers: {
              req: (req) => ({ method: req.method, url: pathOnly(req.url), remoteAddress: req.ip }),
            },
          },
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    genReqId: () => crypto.randomUUID(),
    // A machine id is up to 128 printable ASCII characters: percent-encoded in a path that is up to 384.
    routerOptions: { maxParamLength: 384 },
    frameworkErrors,
  });
  // The API speaks JSON only: anything else is a 415, not a string the schema then rejects.
  app.removeContentTypeParser("text/plain");
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerNulGuard(app);

  const database = await openDatabase(config.database);
  app.decorate("database", database);
  const secret = config.appSecret ?? loadOrCreateSecret(config.dataDir);

  await registerSecurity(app, config);
  await registerRateLimit(app, config);
  await registerOpenApi(app);
  await app.register(compress, { threshold: 1024 });

  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    "/api/health",
    {
      schema: {
        tags: ["Service"],
        summary: "Liveness",
        response: { 200: z.object({ success: z.literal(true), status: z.literal("ok") }) },
      },
    },
    async () => ({ success: true as const, status: "ok" as const }),
  );
  api.get(
    "/api/ready",
    {
      schema: {
        tags: ["Service"],
        summary: "Readiness: the database answers",
        response: { 200: z.object({ success: z.literal(true), status: z.literal("ready") }), 503: ApiErrorSchema },
      },
    },
    async (_request, reply) => {
      try {
        await database.ping();
        return { success: true as const, status: "ready" as const };
      } catch {
        return reply.code(503).send({ success: false, error: "Database unavailable", code: "NOT_READY" });
      }
    },
  );
  api.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  registerSignupRoutes(app, { db: database.db, config });
  registerNewsletterRoutes(app, { db: database.db, config, secret });

  const redirectUri = `${config.publicOrigin}/auth/callback`;
  const relyingParty: RelyingPartyOptions =
    config.identityProvider.kind === "oidc"
      ? config.identityProvider
      : await mountDevelopmentIssuer(app, { publicOrigin: config.publicOrigin, secret, redirectUri });
  const auth = new AuthService(database.db, createRelyingParty(relyingParty), {
    publicOrigin: config.publicOrigin,
    sessionTtlDays: config.sessionTtlDays,
  });
  app.decorate("auth", auth);
  registerAuthRoutes(app, { auth, config });

  const signer = createLicenseSigner({ pem: config.licenseSigningKey, dataDir: config.dataDir });
  const licensing = new LicensingService(database.db, signer, (error) =>
    app.log.error({ err: error }, "flushing validation counters failed"),
  );
  licensing.recorder.start();
  // Before the database closes: write the last second of counters.
  app.addHook("onClose", async () => licensing.recorder.stop());
  const customers = new CustomerLicenses(database.db, licensing.cache, () => licensing.recorder.flush());
  app.decorate("licensing", licensing);
  registerLicensingRoutes(app, { licensing, customers, signer, auth, config });

  // Unknown API routes answer JSON, never the site's 404 page.
  const notFound = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(404).send({ success: false, error: "Not found", code: ERROR_CODES.notFound });
  app.all("/api/*", { schema: { hide: true } }, notFound);
  // Methods `all` does not cover (PROPFIND, MKCOL…) reach the not-found handler: the same JSON.
  app.setNotFoundHandler(notFound);

  // Registered last so that it runs after every other onClose hook (they run in registration order).
  app.addHook("onClose", async () => database.close());

  if (config.siteDir) await app.register(sitePlugin, { root: config.siteDir, production: config.env === "production" });

  return app;
}
