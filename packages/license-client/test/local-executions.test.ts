/**
 * Offline executions counted on this machine (src/local-executions.ts): one file per running execution, files of
 * processes that are gone ignored, and processes racing for the last slot never both getting it.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileExecutionCounter, MemoryExecutionCounter } from "../src/local-executions";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flotilla-local-executions-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const record = (executionId: string) => ({ executionId, feature: "", startedAt: new Date() });

describe("FileExecutionCounter", () => {
  it("takes up to the limit, refuses past it naming the holders, and frees a slot on release", async () => {
    const counter = new FileExecutionCounter(join(dir, "count"));
    const a = await counter.acquire(2, record("a"));
    const b = await counter.acquire(2, record("b"));
    expect(a).toMatchObject({ ok: true, running: 1 });
    expect(b).toMatchObject({ ok: true, running: 2 });
    const c = await counter.acquire(2, { ...record("c"), startedAt: new Date() });
    expect(c.ok).toBe(false);
    expect(!c.ok && c.holders.map((holder) => holder.executionId).sort()).toEqual(["a", "b"]);
    expect((await readdir(join(dir, "count"))).sort()).toEqual(["a.json", "b.json"]);
    if (a.ok) await a.release();
    expect(await counter.acquire(2, record("c"))).toMatchObject({ ok: true });
  });

  it("ignores (and removes) the files of processes that are gone, and files it cannot read", async () => {
    const folder = join(dir, "count");
    const counter = new FileExecutionCounter(folder, { isAlive: (pid) => pid === process.pid || pid === 4242 });
    await counter.acquire(5, record("mine"));
    const write = (name: string, body: unknown) => writeFile(join(folder, name), JSON.stringify(body));
    await write("alive.json", { pid: 4242, execution_id: "alive", feature: "x", started_at: new Date().toISOString() });
    await write("dead.json", { pid: 4243, execution_id: "dead", feature: "x", started_at: new Date().toISOString() });
    await writeFile(join(folder, "garbage.json"), "not json");
    const running = await counter.running();
    expect(running.map((holder) => holder.executionId).sort()).toEqual(["alive", "mine"]);
    expect((await readdir(folder)).sort()).toEqual(["alive.json", "mine.json"]);
  });

  it("processes racing for the slots never take more than the limit", async () => {
    // Eight processes start at the same instant, each trying to take one of two slots and holding it for a second.
    const source = fileURLToPath(new URL("../src/local-executions.ts", import.meta.url));
    await writeFile(
      join(dir, "racer.mjs"),
      `import { FileExecutionCounter } from ${JSON.stringify(source)};
const [folder, at, id] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, Number(at) - Date.now()));
const counter = new FileExecutionCounter(folder);
const taken = await counter.acquire(2, { executionId: id, feature: "", startedAt: new Date() });
const from = Date.now();
if (taken.ok) await new Promise((resolve) => setTimeout(resolve, 1_000));
const until = Date.now();
if (taken.ok) await taken.release();
process.stdout.write(JSON.stringify({ ok: taken.ok, from, until }));
`,
    );
    await build({
      entryPoints: [join(dir, "racer.mjs")],
      outfile: join(dir, "racer.bundle.mjs"),
      bundle: true,
      platform: "node",
      format: "esm",
      logLevel: "silent",
    });
    const folder = join(dir, "race");
    const at = Date.now() + 3_000;
    const results = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) =>
          new Promise<{ ok: boolean; from: number; until: number }>((resolve, reject) => {
            const child = spawn(process.execPath, [join(dir, "racer.bundle.mjs"), folder, String(at), `racer-${i}`]);
            let out = "";
            child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
            child.on("exit", (code) =>
              code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`racer ${i}: ${code}`)),
            );
          }),
      ),
    );
    const winners = results.filter((result) => result.ok);
    expect(winners.length).toBeGreaterThanOrEqual(1);
    // At no moment did more than two hold a slot (a racer that started late may win after a release; a loser's file
    // is there for a moment before it withdraws, so counting files is not the measure).
    for (const winner of winners) {
      const overlapping = winners.filter((other) => other.from <= winner.from && winner.from < other.until);
      expect(overlapping.length).toBeLessThanOrEqual(2);
    }
    expect(await readdir(folder)).toEqual([]);
  }, 30_000);
});

describe("MemoryExecutionCounter", () => {
  it("counts in this process", async () => {
    const counter = new MemoryExecutionCounter();
    const a = await counter.acquire(1, record("a"));
    expect(a.ok).toBe(true);
    expect((await counter.acquire(1, record("b"))).ok).toBe(false);
    if (a.ok) await a.release();
    expect((await counter.acquire(1, record("b"))).ok).toBe(true);
  });
});
