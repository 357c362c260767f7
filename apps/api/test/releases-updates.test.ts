/**
 * The customer's side of distribution (decision 0059): the update check (signed, never a downgrade), the platform
 * switch, channels by entitlement, a release that requires a feature, the Sparkle appcast and Tauri's update JSON
 * (License header + machine), download links (streamed with Range, counted once, expiring, tamper-proof), the
 * portal's downloads and the public pages — and the attackers: a stranger, a suspended license, a machine that holds
 * no slot, another customer's license, a forged link, a key in the query string.
 */
import { NONCE_HEADER, SIGNATURE_HEADER } from "@flotilla/contracts/seats";
import { sql } from "drizzle-orm";
import { XMLParser } from "fast-xml-parser";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setStatus } from "./helpers/license-status";
import { licensedCustomer } from "./helpers/licensed-customer";
import { auth, openPlatform, operator, publishRelease, rowsOf } from "./helpers/releases";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "release.updates@example.com";
const MAC = [{ platform: "macos", arch: "universal" }];

let app: FastifyInstance;
let close: () => Promise<void>;
let admin: string;
let token: string;
let customer: { token: string; key: string };
let stable: Awaited<ReturnType<typeof publishRelease>>;
let beta: Awaited<ReturnType<typeof publishRelease>>;
let linux: Awaited<ReturnType<typeof publishRelease>>;

async function bind(key: string, machine: string) {
  const answer = await app.inject({
    method: "POST",
    url: "/api/license/validate",
    payload: { license_key: key, machine_id: machine },
  });
  expect(answer.json().data.code).toBe("VALID");
}

const check = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.inject({
    method: "POST",
    url: "/api/license/updates/check",
    headers,
    payload: { platform: "macos", arch: "aarch64", current_version: "1.0.0", ...payload },
  });

beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false, adminEmails: [ADMIN] }));
  ({ admin, token } = await operator(app, ADMIN));
  stable = await publishRelease(app, token, { version: "1.4.0", targets: MAC });
  beta = await publishRelease(app, token, { version: "1.5.0-beta.1", channel: "beta", targets: MAC });
  linux = await publishRelease(app, token, {
    version: "1.4.1",
    targets: [
      { platform: "linux", arch: "x86_64" },
      { platform: "linux", arch: "aarch64" },
    ],
  });
  customer = await licensedCustomer(app, "updater");
  await bind(customer.key, "mac-1");
}, 90_000);
afterAll(() => close());

describe("the update check", () => {
  it("answers no update while the platform is closed, then the newest stable build, signed", async () => {
    const closed = await check({ license_key: customer.key, machine_id: "mac-1" });
    expect(closed.statusCode).toBe(200);
    expect(closed.json().data.update).toBeNull();
    await openPlatform(app, admin, "macos");
    await openPlatform(app, admin, "linux");

    const answer = await check(
      { license_key: customer.key, machine_id: "mac-1" },
      { [NONCE_HEADER]: "nonce-12345678" },
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.headers[SIGNATURE_HEADER]).toMatch(/nonce="nonce-12345678"/);
    const update = answer.json().data.update;
    expect(update).toMatchObject({ version: "1.4.0", channel: "stable", release_id: stable.releaseId });
    expect(update.artifact).toMatchObject({ platform: "macos", arch: "universal", size: 4096 });
    expect(update.artifact.signature).toHaveLength(88);
    expect(update.download.url).toMatch(/\/api\/downloads\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(Date.parse(update.download.expires_at) - Date.now()).toBeLessThanOrEqual(300_000);
  });

  it("never offers a downgrade or the same version", async () => {
    for (const current of ["1.4.0", "1.4.1", "2.0.0"]) {
      const answer = await check({ license_key: customer.key, machine_id: "mac-1", current_version: current });
      expect(answer.json().data.update, current).toBeNull();
    }
    const older = await check({ license_key: customer.key, machine_id: "mac-1", current_version: "1.4.0-rc.1" });
    expect(older.json().data.update.version).toBe("1.4.0");
  });

  it("beta reaches admitted testers who ask for it, and nobody else", async () => {
    const asked = await check({ license_key: customer.key, machine_id: "mac-1", channel: "beta" });
    expect(asked.json().data.update.version).toBe("1.4.0");
    const original = app.releases.isTester;
    app.releases.isTester = async () => true;
    try {
      const tester = await check({ license_key: customer.key, machine_id: "mac-1", channel: "beta" });
      expect(tester.json().data.update.version).toBe("1.5.0-beta.1");
      const stableOnly = await check({ license_key: customer.key, machine_id: "mac-1", channel: "stable" });
      expect(stableOnly.json().data.update.version).toBe("1.4.0");
    } finally {
      app.releases.isTester = original;
    }
    expect(beta.version).toBe("1.5.0-beta.1");
  });

  it("picks the build for the machine's arch on Linux, and nothing for an arch without one", async () => {
    await bind(customer.key, "linux-1");
    const arm = await check({ license_key: customer.key, machine_id: "linux-1", platform: "linux", arch: "aarch64" });
    expect(arm.json().data.update.artifact).toMatchObject({ platform: "linux", arch: "aarch64" });
    const windows = await check({
      license_key: customer.key,
      machine_id: "linux-1",
      platform: "windows",
      arch: "x86_64",
    });
    expect(windows.json().data.update).toBeNull();
    expect(linux.artifacts).toHaveLength(2);
  });

  it("a release that requires a feature skips a license whose tier lacks it", async () => {
    await publishRelease(app, token, { version: "1.6.0", targets: MAC, requires_feature: "sharedMemory" });
    const answer = await check({ license_key: customer.key, machine_id: "mac-1" });
    expect(answer.json().data.update.version).toBe("1.4.0"); // free tier: no shared memory
  });

  it("refuses a stranger, a machine without a slot, a suspended license; a yanked release is never offered", async () => {
    const stranger = await check({ license_key: "FLOT-AAAAA-BBBBB-CCCCC-DDDDD-EEEEE", machine_id: "mac-1" });
    expect(stranger.statusCode).toBe(404);
    const unbound = await check({ license_key: customer.key, machine_id: "someone-elses-mac" });
    expect(unbound.statusCode).toBe(403);
    expect(unbound.json().code).toBe("NOT_ACTIVATED");

    const other = await licensedCustomer(app, "suspended");
    await bind(other.key, "mac-s");
    await setStatus(app, other.key, "suspended");
    const suspended = await check({ license_key: other.key, machine_id: "mac-s" });
    expect(suspended.statusCode).toBe(403);
    expect(suspended.json().code).toBe("SUSPENDED");

    const newer = await publishRelease(app, token, { version: "1.4.5", targets: MAC });
    expect((await check({ license_key: customer.key, machine_id: "mac-1" })).json().data.update.version).toBe("1.4.5");
    await app.inject({
      method: "POST",
      url: `/api/admin/releases/${newer.releaseId}/yank`,
      headers: auth(token),
      payload: {},
    });
    expect((await check({ license_key: customer.key, machine_id: "mac-1" })).json().data.update.version).toBe("1.4.0");
  });
});

describe("download links", () => {
  async function freshLink() {
    const answer = await check({ license_key: customer.key, machine_id: "mac-1" });
    return new URL(answer.json().data.update.download.url).pathname;
  }
  const count = async (releaseId: string) =>
    Number(
      (
        await rowsOf<{ n: string }>(
          app,
          sql`SELECT coalesce(sum(count), 0) AS n FROM release_download_counts WHERE release_id = ${releaseId}`,
        )
      )[0]?.n ?? 0,
    );

  it("streams the file, resumes with Range, and counts a download once", async () => {
    const before = await count(stable.releaseId);
    const path = await freshLink();
    // A download manager's HEAD learns the size and does not count.
    const head = await app.inject({ method: "HEAD", url: path });
    expect(head.statusCode).toBe(200);
    expect(head.headers["content-length"]).toBe("4096");
    expect(await count(stable.releaseId)).toBe(before);
    const whole = await app.inject({ url: path });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers["content-type"]).toBe("application/octet-stream");
    expect(whole.headers["content-disposition"]).toContain("attachment");
    expect(whole.rawPayload.equals(stable.artifacts[0]!.bytes)).toBe(true);
    const rest = await app.inject({ url: path, headers: { range: "bytes=1000-" } });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers["content-range"]).toBe("bytes 1000-4095/4096");
    expect(rest.rawPayload.equals(stable.artifacts[0]!.bytes.subarray(1000))).toBe(true);
    expect((await app.inject({ url: path, headers: { range: "bytes=5000-" } })).statusCode).toBe(416);
    expect(await count(stable.releaseId)).toBe(before + 1);
    const listed = await app.inject({ url: "/api/admin/releases", headers: auth(admin) });
    const row = listed.json().data.find((release: { id: string }) => release.id === stable.releaseId);
    expect(row.downloads.by_platform.macos).toBe(before + 1);
  });

  it("refuses a forged, altered or expired link", async () => {
    const path = await freshLink();
    const [payload, mac] = path.split("/").at(-1)!.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const altered = Buffer.from(JSON.stringify({ ...claims, e: claims.e + 86_400 })).toString("base64url");
    for (const url of [
      `/api/downloads/${altered}.${mac}`,
      `/api/downloads/${payload}.${"A".repeat(43)}`,
      "/api/downloads/nothing",
    ]) {
      const answer = await app.inject({ url });
      expect(answer.statusCode, url).toBe(410);
      expect(answer.json().code).toBe("LINK_EXPIRED");
    }
    const expired = app.releases.links.issue({ ...claims, e: Math.floor(Date.now() / 1000) - 1 });
    expect((await app.inject({ url: `/api/downloads/${expired}` })).statusCode).toBe(410);
  });
});

describe("updater feeds", () => {
  const feedHeaders = (key = customer.key, machine = "mac-1") => ({
    authorization: `License ${key}`,
    "flotilla-machine-id": machine,
  });

  it("Sparkle's appcast lists the allowed builds with version, length and edSignature", async () => {
    const answer = await app.inject({ url: "/api/license/updates/sparkle/appcast.xml", headers: feedHeaders() });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.headers["content-type"]).toContain("application/rss+xml");
    const rss = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" }).parse(answer.body).rss;
    expect(rss["@xmlns:sparkle"]).toBe("http://www.andymatuschak.org/xml-namespaces/sparkle");
    const items = [rss.channel.item].flat();
    expect(items[0]["sparkle:version"]).toBe("1.4.0");
    expect(items[0]["sparkle:shortVersionString"]).toBe("1.4.0");
    const enclosure = items[0].enclosure;
    expect(enclosure["@length"]).toBe("4096");
    expect(enclosure["@sparkle:edSignature"]).toHaveLength(88);
    expect(items.map((item: Record<string, string>) => item["sparkle:version"])).not.toContain("1.5.0-beta.1");

    // The enclosure redirects, with the same headers, to a fresh link.
    const enclosurePath = new URL(enclosure["@url"]).pathname;
    const redirect = await app.inject({ url: enclosurePath, headers: feedHeaders() });
    expect(redirect.statusCode).toBe(302);
    const file = await app.inject({ url: new URL(redirect.headers.location as string).pathname });
    expect(file.rawPayload.equals(stable.artifacts[0]!.bytes)).toBe(true);
    // Without the headers, nothing.
    expect((await app.inject({ url: enclosurePath })).statusCode).toBe(401);
  });

  it("Tauri's update JSON: the newer build with its minisign signature, or 204", async () => {
    const answer = await app.inject({
      url: "/api/license/updates/tauri/darwin/aarch64/1.0.0",
      headers: feedHeaders(),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json();
    expect(body).toMatchObject({ version: "1.4.0", notes: expect.stringContaining("1.4.0") });
    expect(Number.isNaN(Date.parse(body.pub_date))).toBe(false);
    expect(Buffer.from(body.signature, "base64").toString()).toMatch(
      /^untrusted comment: .*\n.*\ntrusted comment: timestamp:\d+\tfile:/,
    );
    const none = await app.inject({ url: "/api/license/updates/tauri/darwin/aarch64/1.4.0", headers: feedHeaders() });
    expect(none.statusCode).toBe(204);
    const bad = await app.inject({ url: "/api/license/updates/tauri/beos/aarch64/1.0.0", headers: feedHeaders() });
    expect(bad.statusCode).toBe(400);
  });

  it("refuses a missing header, a key in the query string, a stranger and another license's machine", async () => {
    const url = "/api/license/updates/sparkle/appcast.xml";
    expect((await app.inject({ url })).statusCode).toBe(401);
    expect((await app.inject({ url: `${url}?license_key=${customer.key}&machine_id=mac-1` })).statusCode).toBe(401);
    expect((await app.inject({ url, headers: { authorization: `License ${customer.key}` } })).statusCode).toBe(401);
    expect((await app.inject({ url, headers: feedHeaders("FLOT-AAAAA-BBBBB-CCCCC-DDDDD-EEEEE") })).statusCode).toBe(
      404,
    );
    const other = await licensedCustomer(app, "feed-other");
    await bind(other.key, "their-mac");
    // My key with their machine: my license holds no slot for it.
    expect((await app.inject({ url, headers: feedHeaders(customer.key, "their-mac") })).statusCode).toBe(403);
  });

  it("a closed platform's feed is empty and its enclosure refused", async () => {
    const appcast = await app.inject({ url: "/api/license/updates/sparkle/appcast.xml", headers: feedHeaders() });
    const enclosureUrl = /enclosure url="([^"]+)"/.exec(appcast.body)![1]!;
    await openPlatform(app, admin, "macos", false);
    try {
      const empty = await app.inject({ url: "/api/license/updates/sparkle/appcast.xml", headers: feedHeaders() });
      expect(empty.body).not.toContain("<item>");
      const refused = await app.inject({ url: new URL(enclosureUrl).pathname, headers: feedHeaders() });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe("PLATFORM_CLOSED");
    } finally {
      await openPlatform(app, admin, "macos");
    }
  });
});

describe("the portal and the public pages", () => {
  it("the signed-in customer gets, per open platform, the newest build for their license", async () => {
    const answer = await app.inject({ url: "/api/customer/downloads", headers: auth(customer.token) });
    expect(answer.statusCode).toBe(200);
    const { license_key, platforms } = answer.json().data;
    expect(license_key).toBe(customer.key);
    const mac = platforms.find((p: { platform: string }) => p.platform === "macos");
    expect(mac).toMatchObject({ open: true, release: { version: "1.4.0" } });
    expect(mac.artifacts[0].download.url).toContain("/api/downloads/");
    const windows = platforms.find((p: { platform: string }) => p.platform === "windows");
    expect(windows).toMatchObject({ open: false, release: null, artifacts: [] });
    expect((await app.inject({ url: "/api/customer/downloads" })).statusCode).toBe(401);
  });

  it("a suspended license's owner is offered nothing", async () => {
    const other = await licensedCustomer(app, "portal-suspended");
    await setStatus(app, other.key, "suspended");
    const answer = await app.inject({ url: "/api/customer/downloads", headers: auth(other.token) });
    expect(answer.json().data.license_key).toBeNull();
    for (const platform of answer.json().data.platforms) expect(platform.artifacts).toEqual([]);
  });

  it("release notes list published stable and beta releases, never drafts or yanked ones; platforms say what is open", async () => {
    await app.inject({
      method: "POST",
      url: "/api/admin/releases",
      headers: auth(token),
      payload: { version: "9.0.0", channel: "stable", notes: "secret draft" },
    });
    const notes = await app.inject({ url: "/api/releases/notes" });
    expect(notes.statusCode).toBe(200);
    const versions = notes.json().data.map((note: { version: string }) => note.version);
    expect(versions).toContain("1.4.0");
    expect(versions).toContain("1.5.0-beta.1");
    expect(versions).not.toContain("9.0.0");
    expect(versions).not.toContain("1.4.5");
    expect(notes.body).not.toContain("secret draft");
    const platforms = await app.inject({ url: "/api/downloads/platforms" });
    expect(platforms.json().data).toEqual([
      { platform: "macos", open: true },
      { platform: "windows", open: false },
      { platform: "linux", open: true },
    ]);
  });

  it("opening and closing a platform is audited and sent as a webhook event", async () => {
    const audit = await rowsOf<{ type: string }>(
      app,
      sql`SELECT type FROM audit_events WHERE target_type = 'platform' AND target_id = 'linux' ORDER BY seq`,
    );
    expect(audit.map((row) => row.type)).toEqual(["downloads.platform_opened"]);
  });
});
