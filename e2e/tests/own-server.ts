/** A server of the test's own, on a fresh data folder, for journeys that must inspect the database after. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = new URL("../..", import.meta.url).pathname;

export interface OwnServer {
  baseURL: string;
  stop(): Promise<void>;
  admin(...args: string[]): { status: number | null; stdout: string; stderr: string };
  cleanup(): void;
}

export async function startOwnServer(port: number): Promise<OwnServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "flotilla-e2e-"));
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "error",
    PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    DATABASE_URL: "",
  };
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, "apps/api/dist/server.js")], {
    env,
    stdio: "inherit",
  });
  const baseURL = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${baseURL}/api/ready`)).ok) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    baseURL,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
    admin: (...args) => {
      const result = spawnSync(process.execPath, [join(ROOT, "apps/api/dist/admin.js"), ...args], {
        env,
        encoding: "utf8",
      });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}
