/**
 * One process per embedded database folder (decision 0047): a folder held by one process is refused to another,
 * with the holder's pid; a lock left by a dead process is taken over; closing releases it; the admin CLI refuses a
 * folder a server holds, with a non-zero exit code and the console address to use instead. Other processes run the
 * TypeScript sources through tsx, so what is tested is what is in src.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/client";

const API_DIR = fileURLToPath(new URL("..", import.meta.url));
const CLIENT = join(API_DIR, "src/db/client.ts");
const CLI = join(API_DIR, "src/cli/admin.ts");

const folders: string[] = [];
function freshFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "flotilla-lock-"));
  folders.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], {
      cwd: API_DIR,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Another process that opens `dir` with openDatabase, runs one query, and closes it. */
function openInAnotherProcess(dir: string): Promise<Result> {
  const script = `
    const { openDatabase } = await import(${JSON.stringify(CLIENT)});
    const handle = await openDatabase({ kind: "pglite", dataDir: ${JSON.stringify(dir)} });
    await handle.ping();
    await handle.close();
    console.log("opened");`;
  return run(["--input-type=module", "-e", script]);
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid!;
  await new Promise((resolve) => child.once("exit", resolve));
  return pid;
}

describe("an embedded database folder has one process at a time", () => {
  it("refuses a second process while one holds it, naming the holder's pid", async () => {
    const dir = freshFolder();
    const held = await openDatabase({ kind: "pglite", dataDir: dir }, { holder: "the lock test" });
    try {
      const second = await openInAnotherProcess(dir);
      expect(second.code).not.toBe(0);
      expect(second.stdout).not.toContain("opened");
      expect(second.stderr).toContain(
        `The embedded database in ${dir} is in use by process ${process.pid} (the lock test`,
      );
      expect(second.stderr).toContain("Stop it first, or make the change through the running server");
      // The holder is unharmed.
      await held.ping();
    } finally {
      await held.close();
    }
  }, 60_000);

  it("releases the lock on close: another process then opens it", async () => {
    const dir = freshFolder();
    const held = await openDatabase({ kind: "pglite", dataDir: dir });
    expect(JSON.parse(readFileSync(join(dir, ".lock"), "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    await held.close();
    expect(existsSync(join(dir, ".lock"))).toBe(false);
    const second = await openInAnotherProcess(dir);
    expect(second.stderr).toBe("");
    expect(second.stdout).toContain("opened");
    expect(existsSync(join(dir, ".lock"))).toBe(false);
  }, 60_000);

  it("takes over a lock left by a process that died", async () => {
    const dir = freshFolder();
    const pid = await deadPid();
    writeFileSync(
      join(dir, ".lock"),
      JSON.stringify({ pid, host: hostname(), started_at: new Date().toISOString(), what: "a crashed server" }),
    );
    const handle = await openDatabase({ kind: "pglite", dataDir: dir });
    try {
      expect(JSON.parse(readFileSync(join(dir, ".lock"), "utf8")).pid).toBe(process.pid);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it("keeps a live holder's lock even when it is stale-looking in every other way", async () => {
    const dir = freshFolder();
    // pid 1 is always alive; the lock is on this host.
    writeFileSync(join(dir, ".lock"), JSON.stringify({ pid: 1, host: hostname(), started_at: "", what: "init" }));
    await expect(openDatabase({ kind: "pglite", dataDir: dir })).rejects.toThrow(
      `The embedded database in ${dir} is in use by process 1 (init)`,
    );
    expect(JSON.parse(readFileSync(join(dir, ".lock"), "utf8")).pid).toBe(1);
  });
});

describe("the admin CLI against a folder a running server holds", () => {
  it("refuses admin grant with a non-zero exit code, the holder's pid and the console to use instead", async () => {
    const dataDir = freshFolder();
    const pgliteDir = join(dataDir, "pglite");
    const server = await openDatabase({ kind: "pglite", dataDir: pgliteDir }, { holder: "the Flotilla server" });
    try {
      const result = await run([CLI, "admin", "grant", "new-admin@example.com"], {
        DATA_DIR: dataDir,
        DATABASE_URL: "",
        PUBLIC_ORIGIN: "http://localhost:3999",
      });
      expect(result.code).toBe(3);
      expect(result.stdout).not.toContain("admin granted");
      expect(result.stderr).toContain(
        `The embedded database in ${pgliteDir} is in use by process ${process.pid} (the Flotilla server`,
      );
      expect(result.stderr).toContain("http://localhost:3999/admin?tab=admins");
    } finally {
      await server.close();
    }
    // Nothing was written behind the server's back.
    const after = await openDatabase({ kind: "pglite", dataDir: pgliteDir });
    try {
      const { rows } = (await after.db.execute("select count(*)::int as n from admins")) as unknown as {
        rows: { n: number }[];
      };
      expect(rows[0]!.n).toBe(0);
    } finally {
      await after.close();
    }
  }, 90_000);
});
