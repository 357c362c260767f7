import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TIERS } from "@flotilla/contracts/tiers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LicenseStateError } from "../src/errors";
import { defaultStatePath, FileStateStore, type LicenseState, MemoryStateStore } from "../src/state";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "flotilla-state-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const state: LicenseState = {
  version: 2,
  server_url: "http://127.0.0.1:3000",
  license_key: "FLOT-AAAAA-BBBBB-CCCCC-DDDDD-EEEEE",
  machine_id: "desktop-abc",
  machine_name: "Laptop",
  token: "header.payload.signature",
  license: { tier: "free", status: "active", expires_at: null, features: TIERS.free.features, max_machines: 3 },
  machine: { display_id: "M-0001", is_primary: true },
  activated_at: "2025-03-01T12:00:00.000Z",
  last_validated_at: "2025-03-01T12:00:00.000Z",
  last_code: "VALID",
  last_checked_at: "2025-03-01T12:00:00.000Z",
};

// POSIX permission bits do not exist on Windows; everything else runs everywhere.
const posix = process.platform !== "win32";

describe("FileStateStore", () => {
  it("returns null when nothing is stored, and round-trips the state, creating folders", async () => {
    const store = new FileStateStore(join(dir, "nested", "deeper", "license.json"));
    expect(await store.read()).toBeNull();
    await store.write(state);
    expect(await store.read()).toEqual(state);
  });

  it.runIf(posix)("writes the file with mode 0600, even over a more open file", async () => {
    const path = join(dir, "license.json");
    await writeFile(path, "{}", { mode: 0o644 });
    await chmod(path, 0o644);
    await new FileStateStore(path).write(state);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("replaces the file by rename (a new inode), leaving no temp files behind", async () => {
    const path = join(dir, "license.json");
    const store = new FileStateStore(path);
    await store.write(state);
    const before = await stat(path);
    await store.write({ ...state, token: "new.token.value" });
    const after = await stat(path);
    expect(after.ino).not.toBe(before.ino);
    expect((await store.read())?.token).toBe("new.token.value");
    expect(await readdir(dir)).toEqual(["license.json"]);
  });

  it("keeps the old file intact and cleans up when the final rename fails", async () => {
    const path = join(dir, "license.json");
    // A non-empty directory at the target path makes rename fail after the temp file was written.
    await mkdir(path);
    await writeFile(join(path, "keep"), "x");
    const error = await new FileStateStore(path).write(state).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LicenseStateError);
    expect(await readdir(dir)).toEqual(["license.json"]);
    expect(await readdir(path)).toEqual(["keep"]);
  });

  it("reports a corrupt or foreign file clearly", async () => {
    const path = join(dir, "license.json");
    await writeFile(path, "{ not json");
    await expect(new FileStateStore(path).read()).rejects.toThrow(/not valid JSON/);
    await writeFile(path, JSON.stringify({ version: 1, license_key: 42 }));
    await expect(new FileStateStore(path).read()).rejects.toBeInstanceOf(LicenseStateError);
  });

  it("clears the state", async () => {
    const path = join(dir, "license.json");
    const store = new FileStateStore(path);
    await store.write(state);
    expect(await store.clear()).toBe(true);
    expect(await store.clear()).toBe(false);
    await expect(readFile(path)).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("defaultStatePath", () => {
  it("prefers FLOTILLA_LICENSE_STATE, then XDG_CONFIG_HOME, then ~/.config", () => {
    expect(defaultStatePath({ FLOTILLA_LICENSE_STATE: "/x/state.json", HOME: "/home/u" })).toBe("/x/state.json");
    expect(defaultStatePath({ XDG_CONFIG_HOME: "/cfg", HOME: "/home/u" })).toBe(
      join("/cfg", "flotilla", "license.json"),
    );
    expect(defaultStatePath({ HOME: "/home/u" })).toBe(join("/home/u", ".config", "flotilla", "license.json"));
  });
});

describe("MemoryStateStore", () => {
  it("stores copies", async () => {
    const store = new MemoryStateStore();
    const copy = structuredClone(state);
    await store.write(copy);
    copy.token = "mutated";
    expect((await store.read())?.token).toBe(state.token);
    expect(await store.clear()).toBe(true);
    expect(await store.read()).toBeNull();
  });
});
