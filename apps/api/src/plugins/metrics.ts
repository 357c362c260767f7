/**
 * Prometheus metrics (prom-client) at GET /metrics, per instance (label `instance`): request rate and latency per
 * route, validation codes, the counter flush (lag, duration, failures), database pool use, rate-limit refusals,
 * the license cache's hits and misses, Redis fallbacks and its circuit breaker, the license-change channels, open
 * live event streams, the instances alive, and the process's own figures. nginx does not expose
 * /metrics publicly (deploy/nginx.conf.template): scrape each instance directly.
 */
import type { FastifyInstance } from "fastify";
import client from "prom-client";
import type { CircuitState } from "../lib/circuit-breaker";

export interface MetricsSources {
  instance: string;
  /** Pool figures (PostgreSQL), or null for the embedded database. */
  pool: () => { total: number; idle: number; waiting: number } | null;
  /** Age of the oldest validation counter not yet written, in ms (0 when none waits). */
  counterLagMs: () => number;
  cache: () => { hits: number; misses: number };
  /** The Redis circuit breaker's state, or null without Redis. */
  redisCircuit: () => CircuitState | null;
  /** Whether license changes arrive on each channel (license-invalidation.ts). */
  changeChannels: () => Record<"postgres" | "redis", "ok" | "down" | "off">;
  /** Executions running now across the service (a bounded count in the database, read when scraped). */
  runningExecutions: () => Promise<number>;
  /** Live event streams open on this instance (modules/live/customer-events.ts). */
  liveStreams: () => number;
  /** Instances alive as this one sees them (db/instances.ts): it counts alone at 1/n of each limit without Redis. */
  instances: () => number;
}

export interface Metrics {
  validation(code: string): void;
  flush(seconds: number, ok: boolean): void;
  redisFallback(): void;
  executionRefused(): void;
}

/** Counts kept elsewhere, exposed as Prometheus counters (their value is read when scraped). */
function readCounter(registry: client.Registry, name: string, help: string, read: () => number) {
  return new client.Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

export function registerMetrics(app: FastifyInstance, sources: MetricsSources): Metrics {
  const registry = new client.Registry();
  registry.setDefaultLabels({ instance: sources.instance });
  client.collectDefaultMetrics({ register: registry, prefix: "flotilla_" });

  const requests = new client.Histogram({
    name: "flotilla_http_request_duration_seconds",
    help: "Request latency per route (the route pattern, not the URL) and status",
    labelNames: ["method", "route", "status_code"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const refusals = new client.Counter({
    name: "flotilla_rate_limit_refusals_total",
    help: "Requests answered 429 by a rate limit, per route",
    labelNames: ["route"],
    registers: [registry],
  });
  const validations = new client.Counter({
    name: "flotilla_license_validations_total",
    help: "License validations per result code",
    labelNames: ["code"],
    registers: [registry],
  });
  const flushes = new client.Histogram({
    name: "flotilla_counter_flush_duration_seconds",
    help: "Writing buffered validation counters and last-seen times",
    labelNames: ["outcome"],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  new client.Gauge({
    name: "flotilla_counter_flush_lag_seconds",
    help: "Age of the oldest validation counter not yet written (what a crash would lose)",
    registers: [registry],
    collect() {
      this.set(sources.counterLagMs() / 1000);
    },
  });
  new client.Gauge({
    name: "flotilla_db_pool_connections",
    help: "Database pool connections by state (PostgreSQL only)",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const pool = sources.pool();
      if (!pool) return;
      this.set({ state: "total" }, pool.total);
      this.set({ state: "idle" }, pool.idle);
      this.set({ state: "waiting" }, pool.waiting);
    },
  });
  readCounter(
    registry,
    "flotilla_license_cache_hits_total",
    "License state served from the cache",
    () => sources.cache().hits,
  );
  readCounter(
    registry,
    "flotilla_license_cache_misses_total",
    "License state read from the database",
    () => sources.cache().misses,
  );
  const fallbacks = new client.Counter({
    name: "flotilla_redis_fallbacks_total",
    help: "Rate-limit counts taken in this process because Redis did not answer in time or was being skipped",
    registers: [registry],
  });
  new client.Gauge({
    name: "flotilla_redis_circuit_open",
    help: "1 while Redis is skipped after repeated failures or timeouts (0.5 while one call probes it), else 0",
    registers: [registry],
    collect() {
      const state = sources.redisCircuit();
      if (state !== null) this.set(state === "open" ? 1 : state === "half-open" ? 0.5 : 0);
    },
  });

  new client.Gauge({
    name: "flotilla_license_change_channel_up",
    help: "1 while license changes made elsewhere arrive on this channel (postgres: LISTEN feed; redis: subscription), 0 while it is down; absent when not configured",
    labelNames: ["channel"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [channel, state] of Object.entries(sources.changeChannels())) {
        if (state !== "off") this.set({ channel }, state === "ok" ? 1 : 0);
      }
    },
  });

  new client.Gauge({
    name: "flotilla_executions_running",
    help: "Executions holding a lease right now, across every instance (the same figure from each; decision 0048)",
    registers: [registry],
    async collect() {
      try {
        this.set(await sources.runningExecutions());
      } catch {
        // The database did not answer: the gauge is left out of this scrape rather than failing it.
      }
    },
  });
  new client.Gauge({
    name: "flotilla_live_event_streams",
    help: "Live dashboard event streams open on this instance (GET /api/customer/events; at most 5,000 each)",
    registers: [registry],
    collect() {
      this.set(sources.liveStreams());
    },
  });
  new client.Gauge({
    name: "flotilla_instances_alive",
    help: "Instances of the service alive as this one sees them; without Redis it admits 1/n of each rate limit",
    registers: [registry],
    collect() {
      this.set(sources.instances());
    },
  });
  const executionRefusals = new client.Counter({
    name: "flotilla_execution_refusals_total",
    help: "Execution starts (and revivals) refused by this instance because the license ran its limit (EXECUTION_LIMIT)",
    registers: [registry],
  });

  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    requests.observe(
      { method: request.method, route, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    if (reply.statusCode === 429) refusals.inc({ route });
    done();
  });

  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("cache-control", "no-store").type(registry.contentType);
    return registry.metrics();
  });

  return {
    validation: (code) => validations.inc({ code }),
    flush: (seconds, ok) => flushes.observe({ outcome: ok ? "ok" : "failed" }, seconds),
    redisFallback: () => fallbacks.inc(),
    executionRefused: () => executionRefusals.inc(),
  };
}
