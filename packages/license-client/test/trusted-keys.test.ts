/**
 * Keys a publisher passes at construction are checked, their ids computed; with no key at all nothing is trusted,
 * and the error says how to give one.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LicenseClient } from "../src/client";
import { LicenseAnswerError, LicenseInputError } from "../src/errors";
import { LicenseManager } from "../src/license-manager";
import { MemoryStateStore } from "../src/state";
import { BUILD_KIND, checkTrustedKeys, keyIdOf, PINNED_KEYS, trustedKey } from "../src/trusted-keys";
import { type FakeServer, KEYS, startFakeServer } from "./fake-server";

let server: FakeServer;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

const X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
const OTHER = "A".repeat(43);

describe("keys given at construction", () => {
  it("takes the x of an Ed25519 public JWK, whole JWKs included, and computes each id", () => {
    expect(trustedKey(X)).toEqual({ kid: keyIdOf(X), x: X });
    expect(
      checkTrustedKeys([{ kty: "OKP", crv: "Ed25519", x: X, kid: keyIdOf(X) }, { x: server.publicJwk.x! }]),
    ).toEqual([trustedKey(X), trustedKey(server.publicJwk.x!)]);
    const client = new LicenseClient({ baseUrl: server.url, trustedKeys: [{ x: X }] });
    expect(client.trustedKeys).toEqual([trustedKey(X)]);
  });

  it.each([
    ["not an array", { x: X }, "trustedKeys must be an array"],
    ["not a key", ["abc"], "trustedKeys[0] is not a key"],
    ["a short x", [{ x: X.slice(1) }], "trustedKeys[0].x is not an Ed25519 public key"],
    ["a non-canonical x", [{ x: `${X.slice(0, 42)}p` }], "trustedKeys[0].x is not an Ed25519 public key"],
    ["a private key", [{ kty: "OKP", crv: "Ed25519", x: X, d: X }], "trustedKeys[0] is a private key"],
    ["another curve", [{ kty: "OKP", crv: "X25519", x: X }], "trustedKeys[0] is not an Ed25519 key"],
    ["a borrowed kid", [{ x: X, kid: keyIdOf(OTHER) }], "trustedKeys[0].kid is not the id of its key"],
  ])("refuses %s", (_name, keys, message) => {
    expect(() => new LicenseClient({ baseUrl: server.url, trustedKeys: keys as never })).toThrow(message);
    expect(() => checkTrustedKeys(keys)).toThrow(LicenseInputError);
  });
});

describe("no key at all: nothing verifies", () => {
  it("the sources pin nothing", () => {
    expect(BUILD_KIND).toBe("unpinned");
    expect(PINNED_KEYS).toEqual([]);
  });

  it("a manager with no key refuses to be built, and says how to give one", () => {
    const client = new LicenseClient({ baseUrl: server.url });
    expect(() => new LicenseManager({ client, store: new MemoryStateStore() })).toThrow(
      /No signing key is trusted: pass trustedKeys/,
    );
    // The client's keys serve the manager when it is given none of its own.
    const pinned = new LicenseClient({ baseUrl: server.url, trustedKeys: server.trustedKeys });
    expect(() => new LicenseManager({ client: pinned, store: new MemoryStateStore() })).not.toThrow();
  });

  it("a client with no key refuses every signed answer, with the same message", async () => {
    const client = new LicenseClient({ baseUrl: server.url, retries: 0 });
    const call = client.validate({ license_key: KEYS.free, machine_id: "desktop-no-keys" });
    await expect(call).rejects.toBeInstanceOf(LicenseAnswerError);
    await expect(
      new LicenseClient({ baseUrl: server.url, retries: 0 }).validate({
        license_key: KEYS.free,
        machine_id: "desktop-no-keys",
      }),
    ).rejects.toThrow(/No signing key is trusted/);
  });
});
