/**
 * `flotilla-license executions …` end to end through main(), against the fake server: start / heartbeat / list / end,
 * `run -- <command>` holding a lease with heartbeats while its command runs, and a refusal's exit code and holders.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXECUTION_MESSAGES } from "@flotilla/contracts/executions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT, main } from "../src/cli";
import { deadUrl, type FakeServer, KEYS, startFakeServer } from "./fake-server";

let server: FakeServer;
let dir: string;

beforeEach(async () => {
  // Heartbeats every second, so a command running a few seconds sees some.
  server = await startFakeServer({ executionHeartbeatSeconds: 1 });
  dir = await mkdtemp(join(tmpdir(), "flotilla-cli-executions-"));
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], machine = "cli-exec-a", env: Record<string, string> = {}): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: { FLOTILLA_LICENSE_STATE: join(dir, `${machine}.json`), FLOTILLA_MACHINE_ID: machine, ...env },
    client: { sleep: async () => {} },
    build: { kind: "development", trustedKeys: server.trustedKeys },
  });
  return { code, stdout, stderr };
}

const json = (r: Run) => JSON.parse(r.stdout);
const countOf = (suffix: string) => server.requests.filter((r) => r.path.endsWith(suffix)).length;

describe("flotilla-license executions", () => {
  it("start → heartbeat → list → end", async () => {
    expect((await run(["activate", KEYS.free, "--server", server.url])).code).toBe(EXIT.ok);
    const started = await run(["executions", "start", "--feature", "code-review"]);
    expect(started).toMatchObject({ code: EXIT.ok, stderr: "" });
    const id = /Started execution ([0-9a-f-]{36}) \(code-review\)\./.exec(started.stdout)?.[1];
    expect(id).toBeDefined();
    expect(started.stdout).toMatch(/Running\s+1 of 1 running/);
    expect(started.stdout).toMatch(/Expires\s+.* UTC \(in \d+s\) unless a heartbeat follows/);
    expect(started.stdout).toContain(`executions heartbeat ${id}" every 1 second`);

    const beat = await run(["executions", "heartbeat", id!, "--json"]);
    expect(json(beat)).toMatchObject({ command: "executions", ok: true, revived: false, execution: { id } });

    const listed = await run(["executions", "list"]);
    expect(listed.stdout).toContain("1 of 1 running on this license.");
    expect(listed.stdout).toMatch(new RegExp(`${id}  this machine, code-review, since .* expires`));

    const ended = await run(["executions", "end", id!]);
    expect(ended.stdout).toMatch(new RegExp(`Execution ${id} ended \\(completed, .* UTC\\)\\.`));
    expect(server.leases.get(id!)?.ended).toBe("completed");
    // Ending it again answers the same; a heartbeat now is refused.
    expect((await run(["executions", "end", id!])).code).toBe(EXIT.ok);
    const late = await run(["executions", "heartbeat", id!]);
    expect(late.code).toBe(EXIT.invalid);
    expect(late.stderr).toContain(`EXECUTION_ENDED: ${EXECUTION_MESSAGES.ended}`);
  });

  it("a refusal exits 4 and names who runs, since when, and when a slot frees itself", async () => {
    await run(["activate", KEYS.free, "--server", server.url], "cli-exec-holder");
    await run(["activate", KEYS.free, "--server", server.url], "cli-exec-b");
    expect((await run(["executions", "start"], "cli-exec-holder")).code).toBe(EXIT.ok);
    const refused = await run(["executions", "start"], "cli-exec-b");
    expect(refused.code).toBe(EXIT.limit);
    expect(refused.stderr).toContain(`EXECUTION_LIMIT: ${EXECUTION_MESSAGES.limit(1)}`);
    expect(refused.stderr).toMatch(/Running {3}Machine cli-exec-holder \(M-0001\), since .* UTC/);
    expect(refused.stderr).toMatch(/The soonest a slot frees itself, if its app has stopped: .* UTC \(in \d+s\)\./);
    const asJson = json(await run(["executions", "run", "--json", "--", process.execPath, "-e", "0"], "cli-exec-b"));
    expect(asJson).toMatchObject({
      ok: false,
      error: { type: "execution_limit", code: "EXECUTION_LIMIT", limit: 1, running: [{ display_id: "M-0001" }] },
    });
  });

  it("run: holds a lease with heartbeats while the command runs, ends it, and exits with the command's code", async () => {
    await run(["activate", KEYS.free, "--server", server.url]);
    const script = "setTimeout(() => { console.log('agent done'); process.exit(3); }, 2600);";
    const ran = await run(["executions", "run", "--feature", "batch-run", "--", process.execPath, "-e", script]);
    expect(ran.code).toBe(3);
    expect(ran.stdout).toContain("agent done");
    const [lease] = [...server.leases.values()];
    expect(lease).toMatchObject({ feature: "batch-run", ended: "completed" });
    expect(countOf("/heartbeat")).toBeGreaterThanOrEqual(2);
    expect(countOf("/api/license/usage")).toBe(0);

    // A command killed by a signal: 128 + its number; a command that does not exist: 127. Both end their lease.
    const killed = await run([
      "executions",
      "run",
      "--",
      process.execPath,
      "-e",
      "process.kill(process.pid, 'SIGTERM')",
    ]);
    expect(killed.code).toBe(128 + 15);
    const missing = await run(["executions", "run", "--", join(dir, "no-such-command")]);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain("Cannot run");
    expect([...server.leases.values()].every((l) => l.ended === "completed")).toBe(true);
  });

  it("run: a lease ended by the server (the owner, from the dashboard) stops the command", async () => {
    await run(["activate", KEYS.free, "--server", server.url]);
    const ending = (async () => {
      while (server.leases.size === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      const [lease] = [...server.leases.values()];
      lease!.ended = "ended_by_owner";
      lease!.ended_at = new Date();
    })();
    const ran = await run(["executions", "run", "--", process.execPath, "-e", "setTimeout(() => {}, 20_000)"]);
    await ending;
    expect(ran.code).toBe(128 + 15);
    expect(ran.stderr).toContain("the execution's lease is no longer held (EXECUTION_ENDED");
  });

  it("run offline on a license file: counted here, and says to report it as usage", async () => {
    await run(["activate", KEYS.free, "--server", server.url]);
    expect((await run(["checkout", "--ttl", "2d"])).code).toBe(EXIT.ok);
    const offline = await deadUrl();
    const ran = await run(
      ["executions", "run", "--feature", "batch-run", "--server", offline, "--", process.execPath, "-e", "0"],
      "cli-exec-a",
    );
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('report it with "flotilla-license usage 1 --feature batch-run"');
  });

  it("usage errors: unknown subcommand, missing command, -- elsewhere, --feature where it does not apply", async () => {
    await run(["activate", KEYS.free, "--server", server.url]);
    expect((await run(["executions"])).code).toBe(EXIT.usage);
    expect((await run(["executions", "stop"])).code).toBe(EXIT.usage);
    expect((await run(["executions", "run"])).stderr).toContain("executions run [--feature NAME] -- <command>");
    expect((await run(["executions", "list", "--", "x"])).code).toBe(EXIT.usage);
    expect((await run(["status", "--", "x"])).code).toBe(EXIT.usage);
    expect((await run(["executions", "list", "--feature", "x"])).code).toBe(EXIT.usage);
    expect((await run(["executions", "heartbeat"])).stderr).toContain("executions heartbeat <id>");
    expect((await run(["executions", "start", "--feature", "Bad Name"])).code).toBe(EXIT.usage);
  });
});
