import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import compress from "@fastify/compress";
import cookie from "@fastify/cookie";
import { ApiErrorSchema, ERROR_CODES } from "@flotilla/contracts/api-errors";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "./config";
import { type DatabaseHandle, openDatabase } from "./db/client";
import { InstanceRegistry } from "./db/instances";
import { allows, conveniences } from "./exposure";
import { cullingJob } from "./jobs/culling";
import { type EmbeddedVacuum, startEmbeddedVacuum } from "./jobs/embedded-vacuum";
import { releaseUploadsJob } from "./jobs/release-uploads";
import { retentionJob } from "./jobs/retention";
import { JobScheduler } from "./jobs/scheduler";
import { withDeadline } from "./lib/peer-waits";
import { closeRedis, connectRedis, connectSubscriber, RedisGate } from "./lib/redis";
import { RequestLogs } from "./lib/request-logging";
import { loadOrCreateSecret } from "./lib/secrets";
import { PrivacyRequests } from "./modules/admin/privacy";
import { AdminRoles } from "./modules/admin/roles";
import { registerAdminRoutes } from "./modules/admin/routes";
import { AdminService } from "./modules/admin/service";
import { WebhookAdmin } from "./modules/admin/webhooks";
import { mountDevelopmentIssuer } from "./modules/auth/dev-issuer";
import { createRelyingParty, type RelyingPartyOptions } from "./modules/auth/identity-provider";
import { registerAuthRoutes } from "./modules/auth/routes";
import { AuthService } from "./modules/auth/service";
import { registerBetaRoutes } from "./modules/beta/routes";
import { BetaAdmin } from "./modules/beta/service";
import { CustomerLicenses } from "./modules/licenses/customer-licenses";
import { ExecutionWatches } from "./modules/licenses/execution-watches";
import { ExecutionsService } from "./modules/licenses/executions-service";
import { LicenseCache } from "./modules/licenses/license-cache";
import { LicenseInvalidation } from "./modules/licenses/license-invalidation";
import { LicensingService } from "./modules/licenses/licensing-service";
import { registerLicensingRoutes } from "./modules/licenses/routes";
import { heldExecutionCount } from "./modules/licenses/seats/execution-leases";
import { createLicenseSigner } from "./modules/licenses/signing";
import { CustomerEventHub } from "./modules/live/customer-events";
import { registerLiveEventRoutes } from "./modules/live/routes";
import { registerNewsletterRoutes } from "./modules/newsletter/routes";
import { loadReleaseKeys } from "./modules/releases/keys";
import { registerReleaseRoutes } from "./modules/releases/routes";
import { ReleaseService } from "./modules/releases/service";
import { type ArtifactStorage, FolderStorage, folderRoot, S3Storage } from "./modules/releases/storage";
import { admittedTesters } from "./modules/releases/testers";
import { registerSignupRoutes } from "./modules/signup/routes";
import { registerDevMailPage } from "./outbox/dev-mail-page";
import { createMailSender } from "./outbox/mail";
import { OutboxRunner } from "./outbox/runner";
import { refusals } from "./plugins/answers";
import { frameworkErrors, registerErrorHandler, registerNulGuard } from "./plugins/errors";
import { type Metrics, registerMetrics } from "./plugins/metrics";
import { registerOpenApi } from "./plugins/openapi";
import { registerRateLimit } from "./plugins/rate-limit";
import { insistsOnHttps, isSubresource, registerSecurity } from "./plugins/security";
import { sitePlugin } from "./plugins/site";

declare module "fastify" {
  interface FastifyInstance {
    database: DatabaseHandle;
    auth: AuthService;
    licensing: LicensingService;
    liveEvents: CustomerEventHub;
    executionWatches: ExecutionWatches;
    instances: InstanceRegistry;
    jobs: JobScheduler;
    lifecycle: Lifecycle;
    outbox: OutboxRunner;
    releases: ReleaseService;
  }
}

const ChecksSchema = z.object({
  database: z.enum(["ok", "down"]),
  redis: z.enum(["ok", "down", "off"]),
  change_feed: z.enum(["ok", "down", "off"]),
});
const ReadySchema = z.object({ success: z.literal(true), status: z.literal("ready"), checks: ChecksSchema });

/** Shared with the server entry: set when SIGTERM arrives, so readiness fails while in-flight work drains. */
export interface Lifecycle {
  draining: boolean;
}

const REQUEST_ID = /^[A-Za-z0-9-]{16,64}$/;
/** The readiness probe answers within about this long whatever its peers do (Docker's probe waits 3 s). */
const READY_CHECK_TIMEOUT_MS = 1_000;

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
    // One line per request at debug, errors and 5xx answers above it (lib/request-logging.ts).
    logController: new RequestLogs(),
    bodyLimit: config.bodyLimit,
    // A hop count trusts that many proxies nearest to us (Fastify's own rule for numbers), a list trusts those
    // addresses; X-Forwarded-For entries written by the client itself are never believed.
    trustProxy:
      typeof config.trustProxy === "number"
        ? (() => {
            const hops = config.trustProxy;
            return (_address: string, hop: number) => hop < hops;
          })()
        : config.trustProxy,
    // While draining after SIGTERM, requests already on an open connection are served (with Connection: close),
    // not refused: a load balancer cannot retry a refused POST safely.
    return503OnClosing: false,
    // app.close() comes after the server entry has drained every connection (server.ts, connection-drain.ts): what is
    // left then — in tests, a connection a client opened and never used — must not hold the close open.
    forceCloseConnections: true,
    // nginx sends its $request_id (deploy/nginx.conf.template): the same id in its log and ours. Anything that
    // does not look like an id is replaced.
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    },
    // A machine id is up to 128 printable ASCII characters: percent-encoded in a path that is up to 384.
    routerOptions: { maxParamLength: 384 },
    frameworkErrors,
  });
  const lifecycle: Lifecycle = { draining: false };
  app.decorate("lifecycle", lifecycle);
  // The API speaks JSON only: anything else is a 415, not a string the schema then rejects.
  app.removeContentTypeParser("text/plain");
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerNulGuard(app);
  // Every answer names its request (correlates with nginx's log); while draining, every answer closes its
  // connection: clients reconnect, and find another instance.
  app.addHook("onRequest", (request, reply, done) => {
    // A script, style or image file is never the request anyone asks about (and its bytes count on a phone).
    if (!isSubresource(request.url)) reply.header("x-request-id", request.id);
    done();
  });
  // Decided when the answer leaves, not when the request came: a request held across the start of a drain (a watch)
  // closes its connection too.
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (lifecycle.draining) reply.header("connection", "close");
    done(null, payload);
  });

  // loadConfig refuses these already; a Config built some other way is held to the same rules (exposure.ts).
  if (!allows(config, "generatedSecrets") && (!config.appSecret || !config.licenseSigningKey)) {
    throw new Error("APP_SECRET and LICENSE_SIGNING_KEY are required: this server may not generate its secrets");
  }
  if (config.identityProvider.kind === "development" && !allows(config, "developmentSignIn")) {
    throw new Error(
      "The development sign-in may not run on this server: configure GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET",
    );
  }
  app.log.info({ exposure: config.exposure, conveniences: conveniences(config) }, "development conveniences");

  const database = await openDatabase(config.database, { holder: `the Flotilla server on port ${config.port}` });
  app.decorate("database", database);
  const secret = config.appSecret ?? loadOrCreateSecret(config.dataDir);
  const redisBounds = { commandTimeoutMs: config.redisCommandTimeoutMs, coolDownMs: config.redisBreakerCoolDownMs };
  const redis = config.redisUrl
    ? connectRedis(config.redisUrl, redisBounds, (error) => app.log.warn({ err: error }, "redis error"))
    : null;
  const redisGate = new RedisGate(redis, redisBounds, {
    onChange: (state) => app.log.warn({ circuit: state }, `redis circuit ${state}`),
  });

  await registerSecurity(app, config);
  await app.register(cookie);
  const instances = new InstanceRegistry(database, config.instanceId, app.log);
  app.decorate("instances", instances);
  await instances.start();
  await registerRateLimit(app, config, redisGate, {
    instances: () => instances.count,
    onFallback: () => metrics.redisFallback(),
  });
  // Sources are read when scraped: the services they read are created below.
  let licensingForMetrics: LicensingService | null = null;
  let liveEventsForMetrics: CustomerEventHub | null = null;
  // Created below with the licensing service; readiness and metrics read it when asked.
  let invalidationForReadiness: LicenseInvalidation | null = null;
  const metrics: Metrics = registerMetrics(app, {
    instance: config.instanceId,
    pool: () => database.poolStats(),
    counterLagMs: () => licensingForMetrics?.recorder.lagMs() ?? 0,
    cache: () => licensingForMetrics?.cache.stats ?? { hits: 0, misses: 0 },
    redisCircuit: () => (redis ? redisGate.breaker.state : null),
    changeChannels: () => invalidationForReadiness?.channels() ?? { postgres: "off", redis: "off" },
    runningExecutions: () => heldExecutionCount(database.db, new Date()),
    liveStreams: () => liveEventsForMetrics?.size ?? 0,
    instances: () => instances.count,
  });
  await registerOpenApi(app, { publicOrigin: config.publicOrigin });
  await app.register(compress, { threshold: 1024 });

  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    "/api/health",
    {
      schema: {
        tags: ["Service"],
        summary: "Liveness",
        response: {
          200: z.object({ success: z.literal(true), status: z.literal("ok") }),
          ...refusals({}, { database: false }),
        },
      },
    },
    async () => ({ success: true as const, status: "ok" as const }),
  );
  api.get(
    "/api/ready",
    {
      schema: {
        tags: ["Service"],
        summary: "Readiness: the database answers and the instance is not shutting down; Redis reported",
        description:
          `Answers within about ${READY_CHECK_TIMEOUT_MS / 1000} s whatever its peers do. 503 while draining after SIGTERM, or when the database does not answer within that time (down or stalled). ` +
          "Redis is reported (`ok`, `down` when it does not answer in time or is being skipped after failures, `off` when not configured) but does not make the instance unready: without it, rate limits count per instance and license changes arrive through the database. `change_feed` says whether license changes made by other instances arrive by message (`ok`), or may be missed so that cached license state lives a second (`down`: the listening connection failed or went silent), or there is no other instance (`off`: the embedded database). Decision 0037.",
        response: {
          200: ReadySchema,
          // Its own probe of the database is bounded (READY_CHECK_TIMEOUT_MS): a silent database is this 503 too.
          ...refusals(
            {
              503: {
                meaning:
                  "NOT_READY: draining after SIGTERM, or the database did not answer in time; `checks` says which peer is down.",
                schema: ApiErrorSchema.extend({ checks: ChecksSchema.optional() }),
              },
            },
            { database: false },
          ),
        },
      },
    },
    async (_request, reply) => {
      if (lifecycle.draining) {
        return reply.code(503).send({ success: false, error: "Shutting down", code: "NOT_READY" });
      }
      const [databaseState, redisState] = await Promise.all([
        withDeadline(database.ping(), READY_CHECK_TIMEOUT_MS, "database").then(
          () => "ok" as const,
          () => "down" as const,
        ),
        redisGate.check(),
      ]);
      const checks = {
        database: databaseState,
        redis: redisState,
        change_feed: invalidationForReadiness?.changeFeedState() ?? ("off" as const),
      };
      if (databaseState === "down") {
        return reply.code(503).send({ success: false, error: "Database unavailable", code: "NOT_READY", checks });
      }
      return { success: true as const, status: "ready" as const, checks: { ...checks, database: "ok" as const } };
    },
  );
  api.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  registerSignupRoutes(app, { db: database.db, config });
  registerNewsletterRoutes(app, { db: database.db, config, secret });

  const redirectUri = `${config.publicOrigin}/auth/callback`;
  const relyingParty: RelyingPartyOptions =
    config.identityProvider.kind === "oidc"
      ? config.identityProvider
      : await mountDevelopmentIssuer(app, {
          db: database.db,
          perMinute: config.rateLimits.perMinute,
          publicOrigin: config.publicOrigin,
          secret,
          redirectUri,
          reason: config.identityProvider.reason,
        });
  const auth = new AuthService(database.db, createRelyingParty(relyingParty), {
    publicOrigin: config.publicOrigin,
    sessionTtlDays: config.sessionTtlDays,
    sessionMaxDays: config.sessionMaxDays,
  });
  app.decorate("auth", auth);
  const adminRoles = new AdminRoles(database.db, config.adminEmails);
  registerAuthRoutes(app, {
    auth,
    config,
    isAdmin: (email) => adminRoles.isAdmin(email),
  });

  const signer = createLicenseSigner({ pem: config.licenseSigningKey, dataDir: config.dataDir });
  const subscriber = redis
    ? connectSubscriber(redis, (error) => app.log.warn({ err: error }, "redis subscriber error"))
    : null;
  // The cache's TTL depends on whether invalidations can arrive (license-cache.ts).
  const cache: LicenseCache = new LicenseCache(() => invalidation.ttlMs());
  const invalidation = new LicenseInvalidation(cache, { redis: redisGate, subscriber, database }, app.log);
  invalidationForReadiness = invalidation;
  await invalidation.started();
  const licensing = new LicensingService(
    database.db,
    signer,
    cache,
    invalidation,
    (error) => app.log.error({ err: error }, "flushing validation counters failed"),
    config.counterFlushIntervalMs,
  );
  licensing.recorder.onFlush = metrics.flush;
  licensing.recorder.start();
  licensingForMetrics = licensing;
  const customers = new CustomerLicenses(
    database.db,
    licensing.seats,
    (licenseKey) => licensing.changed(licenseKey),
    () => licensing.recorder.flush(),
    (customerId) => invalidation.ownerChanged(customerId),
  );
  const executionWatches = new ExecutionWatches(invalidation);
  app.decorate("executionWatches", executionWatches);
  const executions = new ExecutionsService(
    database.db,
    licensing,
    licensing.seats,
    executionWatches,
    metrics.executionRefused,
  );
  // A flush wrote machines' last-seen times: live dashboards of those licenses refresh (decision 0048).
  licensing.recorder.onSeen = (licenseIds) => void invalidation.seen(licenseIds);
  const liveEvents = new CustomerEventHub(database.db, invalidation, app.log, {
    redis: redisGate,
    redisKeyPrefix: config.redisKeyPrefix,
    instances: () => instances.count,
  });
  liveEventsForMetrics = liveEvents;
  app.decorate("liveEvents", liveEvents);
  registerLiveEventRoutes(app, { hub: liveEvents, auth, perMinute: config.rateLimits.perMinute });
  app.decorate("licensing", licensing);
  registerLicensingRoutes(app, { licensing, customers, executions, signer, auth, config, metrics });

  const urlPolicy = allows(config, "webhooksToThisNetwork") ? ("development" as const) : ("production" as const);
  registerAdminRoutes(app, {
    db: database.db,
    auth,
    roles: adminRoles,
    admin: new AdminService(database.db, licensing.seats, () => licensing.changeVisibleWithinSeconds()),
    webhooks: new WebhookAdmin(database.db, secret, urlPolicy),
    executions,
    privacy: new PrivacyRequests(database.db, {
      seats: licensing.seats,
      visibleWithinSeconds: () => licensing.changeVisibleWithinSeconds(),
      isAdmin: (email) => adminRoles.isAdmin(email),
      flushCounters: () => licensing.recorder.flush(),
      appSecret: secret,
    }),
    config,
  });
  // Distribution (issue 36, decisions 0059-0061).
  // Without a data folder (tests), artifacts go to a temporary folder, made on the first upload and removed on close.
  const ephemeralArtifacts = join(tmpdir(), `flotilla-artifacts-${randomUUID()}`);
  if (!config.dataDir) app.addHook("onClose", async () => rmSync(ephemeralArtifacts, { recursive: true, force: true }));
  const { storage: storageConfig } = config.releases;
  const storage: ArtifactStorage =
    storageConfig.kind === "s3"
      ? new S3Storage(storageConfig)
      : new FolderStorage(folderRoot(config.dataDir ?? ephemeralArtifacts));
  const releases = new ReleaseService(database.db, storage, loadReleaseKeys(config), {
    appSecret: secret,
    publicOrigin: config.publicOrigin,
    expiredAccess: config.releases.expiredAccess,
    isTester: admittedTesters(database.db),
  });
  app.decorate("releases", releases);
  registerReleaseRoutes(app, {
    db: database.db,
    releases,
    licensing,
    signer,
    auth,
    roles: adminRoles,
    config,
  });
  registerBetaRoutes(app, { auth, roles: adminRoles, beta: new BetaAdmin(database.db), config });
  if (allows(config, "devMailPage")) registerDevMailPage(app, database.db);
  const mail = createMailSender({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    db: database.db,
    timeoutMs: config.smtpTimeoutMs,
  });
  if (!config.smtpUrl && !allows(config, "devMailPage")) {
    app.log.warn("SMTP_URL is not set: mail is kept in the database (dev_mail), shown on no page and not sent");
  }
  const outboxRunner = new OutboxRunner(database.db, {
    mail,
    mailContext: { publicOrigin: config.publicOrigin, secret },
    appSecret: secret,
    policy: urlPolicy,
    webhookTimeoutMs: config.webhookTimeoutMs,
    intervalMs: config.outboxIntervalMs,
    log: app.log,
  });
  app.decorate("outbox", outboxRunner);

  // Unknown API routes answer JSON, never the site's 404 page.
  const notFound = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(404).send({ success: false, error: "Not found", code: ERROR_CODES.notFound });
  app.all("/api/*", { schema: { hide: true } }, notFound);
  // Methods `all` does not cover (PROPFIND, MKCOL…) reach the not-found handler: the same JSON.
  app.setNotFoundHandler(notFound);

  const jobs = new JobScheduler(
    database.db,
    [retentionJob, cullingJob(licensing.seats), releaseUploadsJob(releases.storage)],
    app.log,
  );
  app.decorate("jobs", jobs);
  let embeddedVacuum: EmbeddedVacuum | null = null;
  if (config.backgroundJobs) {
    jobs.start();
    outboxRunner.start();
    embeddedVacuum = startEmbeddedVacuum(database, app.log);
  }

  // Held watches would hold the close for their whole wait: answer them first, closing their connections (their apps
  // ask another instance).
  app.addHook("preClose", async () => {
    lifecycle.draining = true;
    executionWatches.releaseAll();
  });

  // Shutdown order, in one place: Fastify runs onClose hooks in reverse registration order, and only after the
  // server has stopped accepting and every in-flight request has been answered. Then: no new background work,
  // write the buffered counters, and only then close Redis and the database they need.
  app.addHook("onClose", async () => {
    lifecycle.draining = true;
    liveEvents.closeAll();
    executionWatches.releaseAll();
    await jobs.stop();
    await embeddedVacuum?.stop();
    await outboxRunner.stop();
    mail.close();
    await licensing.recorder.stop();
    await invalidation.close();
    await instances.stop();
    if (subscriber) subscriber.disconnect();
    if (redis) await closeRedis(redis);
    await database.close();
  });

  if (config.siteDir) {
    await app.register(sitePlugin, {
      root: config.siteDir,
      insistOnHttps: insistsOnHttps(config),
      origin: config.publicOrigin,
    });
  }

  return app;
}
