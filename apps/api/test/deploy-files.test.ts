/**
 * deploy/ is what an operator runs elsewhere; no Docker engine runs where this repository is tested. These checks
 * keep it in step with the topology the cluster suite does test (scripts/lib/cluster.mjs) and with the service.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { EXECUTION_RULES } from "@flotilla/contracts/executions";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CONFIG_VARIABLES, loadConfig } from "../src/config";
import { PING_MS } from "../src/modules/live/customer-events";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, "utf8");
// @ts-expect-error -- untyped .mjs module shared with `npm run cluster`
const { renderNginxConf } = await import("../../../scripts/lib/cluster.mjs");
// @ts-expect-error -- untyped .mjs module shared with .ci/run
const { PRODUCTION_NODE } = await import("../../../scripts/lib/node-runtime.mjs");

// biome-ignore lint/suspicious/noExplicitAny: a parsed YAML document, read field by field.
const compose: any = parse(read("deploy/compose.yaml"), { merge: true });

describe("deploy/", () => {
  it("compose runs PostgreSQL, Redis, three API instances and nginx", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["api1", "api2", "api3", "nginx", "postgres", "redis"]);
  });

  it("every instance's environment is configuration the service reads, and valid for production", () => {
    for (const name of ["api1", "api2", "api3"]) {
      const environment = compose.services[name].environment as Record<string, string>;
      for (const variable of Object.keys(environment))
        expect(CONFIG_VARIABLES, `${name}: ${variable}`).toContain(variable);
      // Fill the ${…} the operator provides with plausible values: the service must accept the result.
      const filled = Object.fromEntries(
        Object.entries(environment).map(([key, value]) => [
          key,
          String(value).replace(/\$\{([A-Z_]+)[^}]*\}/g, (_match, variable: string) =>
            variable === "PUBLIC_ORIGIN" ? "https://flotilla.example" : `${variable.toLowerCase()}-${"x".repeat(48)}`,
          ),
        ]),
      );
      const config = loadConfig(filled);
      expect(config.env).toBe("production");
      expect(config.instanceId).toBe(environment.INSTANCE_ID);
      expect(config.redisUrl).toBe("redis://redis:6379");
      expect(config.trustProxy).toBe(1);
    }
  });

  it("the service runs as a role that owns nothing; migrations as the owner; PostgreSQL creates both (decision 0039)", () => {
    const init = read("deploy/postgres-init.sql");
    const postgres = compose.services.postgres;
    expect(postgres.volumes).toContain("./postgres-init.sql:/docker-entrypoint-initdb.d/10-flotilla-roles.sql:ro");
    // The service never logs in as the superuser the image creates.
    expect(postgres.environment.POSTGRES_USER).toBe("postgres");
    // The passwords the init script reads are the ones the instances' URLs carry.
    const passwords = [...init.matchAll(/^\\getenv \w+ (FLOTILLA_\w+_PASSWORD)$/gm)].map((match) => match[1]!);
    expect(passwords).toEqual(["FLOTILLA_OWNER_PASSWORD", "FLOTILLA_SERVICE_PASSWORD"]);
    for (const variable of passwords) {
      expect(postgres.environment[variable], variable).toBe(`\${${variable}:?set ${variable}}`);
    }
    const roleOf = (url: string) => decodeURIComponent(new URL(url.replace(/\$\{[^}]*\}/g, "x")).username);
    for (const name of ["api1", "api2", "api3"]) {
      const environment = compose.services[name].environment as Record<string, string>;
      expect(roleOf(environment.DATABASE_URL!), name).toBe(/^\\set service_role (\w+)$/m.exec(init)![1]);
      expect(roleOf(environment.DATABASE_MIGRATION_URL!), name).toBe(/^\\set owner_role (\w+)$/m.exec(init)![1]);
      expect(environment.DATABASE_URL).toContain("${FLOTILLA_SERVICE_PASSWORD");
      expect(environment.DATABASE_MIGRATION_URL).toContain("${FLOTILLA_OWNER_PASSWORD");
    }
    const example = read("deploy/.env.example");
    for (const variable of ["POSTGRES_PASSWORD", "FLOTILLA_OWNER_PASSWORD", "FLOTILLA_SERVICE_PASSWORD"]) {
      expect(example, variable).toMatch(new RegExp(`^${variable}=$`, "m"));
    }
  });

  it("nginx in compose uses the template the cluster script uses, and it renders completely", () => {
    const nginx = compose.services.nginx;
    expect(nginx.volumes).toContain("./nginx.conf.template:/etc/nginx/templates/nginx.conf.template:ro");
    const rendered: string = renderNginxConf(nginx.environment);
    expect(rendered).not.toMatch(/\$\{FLOTILLA_/);
    expect(rendered).toContain("server api1:3000");
    // A POST that was sent is repeated on another instance only where repeating is harmless (decision 0037).
    const retries = [...rendered.matchAll(/proxy_next_upstream ([^;]*);/g)].map((match) => match[1]);
    expect(retries).toEqual(["error timeout", "error timeout non_idempotent", "error timeout non_idempotent"]);
    expect(rendered).toMatch(/location ~ \^\/api\/license\/\(validate\|heartbeat\)\$ \{[^}]*non_idempotent;/);
    // An execution watch is held up to its hold by the instance: its read timeout outlasts that (decision 0052).
    const watch = /location = \/api\/license\/executions\/watch \{([^}]*)\}/.exec(rendered)?.[1] ?? "";
    expect(watch).toContain("non_idempotent;");
    expect(Number(/proxy_read_timeout (\d+)s;/.exec(watch)?.[1])).toBeGreaterThan(EXECUTION_RULES.watchHoldSeconds + 5);
    expect(rendered).toContain("proxy_read_timeout 10s;");
    expect(rendered).toContain("proxy_set_header X-Request-Id $request_id;");
    // The live dashboard's event stream: each event passed on as it comes, and a read timeout that its pings keep
    // from firing (the cluster suite holds a quiet stream open past it).
    const stream = /location = \/api\/customer\/events \{([^}]*)\}/.exec(rendered)?.[1] ?? "";
    expect(stream).toContain("proxy_buffering off;");
    expect(Number(/proxy_read_timeout (\d+)s;/.exec(stream)?.[1]) * 1_000).toBeGreaterThanOrEqual(PING_MS + 10_000);
    // Streams never end on their own: a reload or a stop closes them after a bound, and compose waits that long.
    const shutdown = Number(/^worker_shutdown_timeout (\d+)s;$/m.exec(rendered)?.[1]);
    expect(shutdown).toBeGreaterThan(20);
    expect(Number(/^(\d+)s$/.exec(nginx.stop_grace_period)?.[1])).toBeGreaterThan(shutdown);
  });

  it("the image carries what the service reads at run time, runs as a non-root user and checks readiness", () => {
    const dockerfile = read("deploy/Dockerfile");
    // apps/api/src/db/client.ts reads migrations from ../src/db/migrations beside dist/.
    expect(dockerfile).toContain("COPY --from=build /app/apps/api/src/db/migrations apps/api/src/db/migrations");
    expect(dockerfile).toContain("COPY --from=build /app/apps/web/build/client apps/web/build/client");
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/api\/ready/);
    // Every stage runs the Node.js CI proves the suite on (.ci/run), and a supported LTS (decision 0041).
    const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(bases).toEqual(Array(3).fill(`node:${PRODUCTION_NODE}-bookworm-slim`));
    expect(Number(PRODUCTION_NODE.split(".")[0]) % 2, "an even (LTS) line").toBe(0);
    expect(Number(PRODUCTION_NODE.split(".")[0])).toBeGreaterThanOrEqual(24);
    // The origin is the running instance's (public-origin.test.ts): nothing hands it to the build.
    expect(dockerfile).not.toMatch(/^\s*(ARG|ENV)\b.*PUBLIC_ORIGIN/m);
  });

  it("README's configuration table lists every variable the service reads", () => {
    const readme = read("README.md");
    for (const variable of CONFIG_VARIABLES) expect(readme, variable).toContain(`\`${variable}\``);
  });
});
