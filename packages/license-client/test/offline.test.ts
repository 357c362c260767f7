import { TIERS } from "@flotilla/contracts/tiers";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN_AUDIENCE, TOKEN_ISSUER, verifyLicenseToken } from "../src/offline";
import { keyIdOf, trustedKey } from "../src/trusted-keys";
import { type FakeServer, GRACE_SECONDS, KEYS, startFakeServer } from "./fake-server";

const MACHINE = "desktop-abc";
const ISSUED = Math.floor(Date.parse("2025-03-01T12:00:00Z") / 1000);
const at = (seconds: number) => new Date((ISSUED + seconds) * 1000);

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
});

function claims(overrides: Record<string, unknown> = {}) {
  return {
    sub: "lic_123",
    lic: KEYS.free,
    mid: MACHINE,
    tier: "free",
    status: "active",
    features: TIERS.free.features,
    max_machines: 3,
    ...overrides,
  };
}

const options = (now: Date) => ({ machineId: MACHINE, licenseKey: KEYS.free, now });

describe("verifyLicenseToken", () => {
  it("accepts a good token and returns its typed claims", async () => {
    const token = await server.sign(claims(), { iat: ISSUED });
    const result = await verifyLicenseToken(token, server.trustedKeys, options(at(3600)));
    expect(result).toMatchObject({
      ok: true,
      kid: server.kid,
      claims: { iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, sub: "lic_123", lic: KEYS.free, mid: MACHINE, tier: "free" },
    });
    if (!result.ok) throw new Error("unreachable");
    expect(result.claims.features).toEqual(TIERS.free.features);
    expect(result.expiresAt.toISOString()).toBe(at(GRACE_SECONDS).toISOString());
  });

  it("accepts the token until the end of the grace period and rejects it after", async () => {
    const token = await server.sign(claims(), { iat: ISSUED });
    expect((await verifyLicenseToken(token, server.trustedKeys, options(at(GRACE_SECONDS - 1)))).ok).toBe(true);
    const late = await verifyLicenseToken(token, server.trustedKeys, options(at(GRACE_SECONDS + 3600)));
    expect(late).toMatchObject({ ok: false, reason: "expired" });
  });

  it("rejects a token issued to another machine", async () => {
    const token = await server.sign(claims({ mid: "desktop-other" }), { iat: ISSUED });
    expect(await verifyLicenseToken(token, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "wrong_machine",
    });
  });

  it("rejects a token for another license key, but not one differing only in case", async () => {
    const other = await server.sign(claims({ lic: KEYS.suspended }), { iat: ISSUED });
    expect(await verifyLicenseToken(other, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "wrong_license",
    });
    const lower = await server.sign(claims({ lic: KEYS.free.toLowerCase() }), { iat: ISSUED });
    expect((await verifyLicenseToken(lower, server.trustedKeys, options(at(60)))).ok).toBe(true);
  });

  it("rejects a tampered token", async () => {
    const token = await server.sign(claims(), { iat: ISSUED });
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    decoded.tier = "ultra";
    decoded.max_machines = 20;
    const forged = `${header}.${Buffer.from(JSON.stringify(decoded)).toString("base64url")}.${signature}`;
    expect(await verifyLicenseToken(forged, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("the forgery from the launch review: a self-made key signing ten years of ultra is refused", async () => {
    const attacker = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const attackerX = (await exportJWK(attacker.publicKey)).x!;
    const forged = await server.sign(claims({ tier: "ultra", max_machines: 20 }), {
      iat: ISSUED,
      exp: ISSUED + 10 * 365 * 86_400,
      key: attacker.privateKey,
      kid: keyIdOf(attackerX),
    });
    const result = await verifyLicenseToken(forged, server.trustedKeys, options(at(60)));
    expect(result).toMatchObject({ ok: false, reason: "untrusted_key" });
    // Naming the trusted key's id does not help: the signature is checked with the pinned key.
    const borrowed = await server.sign(claims({ tier: "ultra" }), {
      iat: ISSUED,
      key: attacker.privateKey,
      kid: server.kid,
    });
    expect(await verifyLicenseToken(borrowed, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("refuses a token that lasts longer than the offline grace, even one the trusted key signed", async () => {
    const long = await server.sign(claims(), { iat: ISSUED, exp: ISSUED + 10 * 365 * 86_400 });
    expect(await verifyLicenseToken(long, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "lifetime_too_long",
    });
    const exact = await server.sign(claims(), { iat: ISSUED, exp: ISSUED + GRACE_SECONDS });
    expect((await verifyLicenseToken(exact, server.trustedKeys, options(at(60)))).ok).toBe(true);
    const oneMore = await server.sign(claims(), { iat: ISSUED, exp: ISSUED + GRACE_SECONDS + 1 });
    expect((await verifyLicenseToken(oneMore, server.trustedKeys, options(at(60)))).ok).toBe(false);
  });

  it("trusts nothing when no key is pinned, and recomputes each pinned key's id", async () => {
    const token = await server.sign(claims(), { iat: ISSUED });
    expect(await verifyLicenseToken(token, [], options(at(60)))).toMatchObject({ ok: false, reason: "untrusted_key" });
    // A pin labelled with another id is still matched by what its key really is.
    const relabelled = [{ kid: "not-its-id", x: server.trustedKeys[0]!.x }];
    expect((await verifyLicenseToken(token, relabelled, options(at(60)))).ok).toBe(true);
    // Rotation: a build that pins the old and the next key accepts tokens from either.
    const next = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const nextX = (await exportJWK(next.publicKey)).x!;
    const rotated = await server.sign(claims(), { iat: ISSUED, key: next.privateKey, kid: keyIdOf(nextX) });
    const both = [...server.trustedKeys, trustedKey(nextX)];
    expect((await verifyLicenseToken(rotated, both, options(at(60)))).ok).toBe(true);
    expect((await verifyLicenseToken(token, both, options(at(60)))).ok).toBe(true);
  });

  it("rejects another issuer or audience", async () => {
    const wrongIss = await server.sign(claims({ iss: "someone-else" }), { iat: ISSUED });
    expect(await verifyLicenseToken(wrongIss, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "wrong_issuer",
    });
    const wrongAud = await server.sign(claims({ aud: "flotilla-web" }), { iat: ISSUED });
    expect(await verifyLicenseToken(wrongAud, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "wrong_issuer",
    });
  });

  it("rejects a token issued in the future (clock set back)", async () => {
    const token = await server.sign(claims(), { iat: ISSUED });
    expect(await verifyLicenseToken(token, server.trustedKeys, options(at(-3600)))).toMatchObject({
      ok: false,
      reason: "clock_rollback",
    });
  });

  it("rejects another algorithm, garbage and missing claims", async () => {
    const hs = await new SignJWT(claims())
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuedAt(ISSUED)
      .setExpirationTime(ISSUED + GRACE_SECONDS)
      .sign(new TextEncoder().encode("a-shared-secret-that-is-long-enough"));
    expect(await verifyLicenseToken(hs, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "malformed",
    });
    expect(await verifyLicenseToken("not.a.jwt", server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "malformed",
    });
    const bare = await server.sign({ sub: "lic_123" }, { iat: ISSUED });
    expect(await verifyLicenseToken(bare, server.trustedKeys, options(at(60)))).toMatchObject({
      ok: false,
      reason: "malformed",
    });
  });

  it("rejects a pinned value that is not an Ed25519 key", async () => {
    const token = await server.sign(claims(), { iat: ISSUED, kid: keyIdOf("not-a-key") });
    const result = await verifyLicenseToken(token, [{ kid: keyIdOf("not-a-key"), x: "not-a-key" }], options(at(60)));
    expect(result).toMatchObject({ ok: false, reason: "untrusted_key" });
  });
});
