/**
 * The validation-token signer (node:crypto, KeyObject loaded once) against jose's SignJWT, which it replaced:
 * Ed25519 is deterministic, so for the same claims and time the tokens must be byte-identical — and jose verifies
 * them with the published JWK, as the desktop SDK does.
 */
import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { importJWK, jwtVerify, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { compactJwtSigner, createLicenseSigner, TOKEN_AUDIENCE, TOKEN_ISSUER } from "../src/modules/licenses/signing";

const claims = {
  lic: "FLOT-AAAAA-BBBBB-CCCCC-DDDDD-EEEEE",
  mid: "desktop-ü-1",
  tier: "free",
  status: "active",
  features: { maxConcurrentExecutions: 2, sharedMemory: false, backups: false, embeddingModels: false },
  max_machines: 3,
  license_expires_at: null,
};

describe("license token signer", () => {
  it("makes the token jose's SignJWT made, byte for byte", async () => {
    const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const ours = createLicenseSigner({ pem, dataDir: null });
    const now = 1_790_000_000_123;
    const iat = Math.floor(now / 1000);
    const expected = await new SignJWT(claims)
      .setProtectedHeader({ alg: "EdDSA", kid: ours.kid, typ: "JWT" })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject("license-id-1")
      .setIssuedAt(iat)
      .setExpirationTime(iat + 604_800)
      .sign(createPrivateKey(pem));
    expect(compactJwtSigner(createPrivateKey(pem), ours.kid)(claims, "license-id-1", 604_800, now)).toBe(expected);
  });

  it("reuses a signature only for the very same signing input (deterministic Ed25519), never across seconds", async () => {
    const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const key = createPrivateKey(pem);
    const memoised = compactJwtSigner(key, "kid-1");
    const fresh = () => compactJwtSigner(key, "kid-1");
    const now = 1_790_000_000_000;
    const first = memoised(claims, "license-id-3", 600, now);
    // Same second, same claims: the token a fresh signer makes, byte for byte.
    expect(memoised(claims, "license-id-3", 600, now + 999)).toBe(first);
    expect(fresh()(claims, "license-id-3", 600, now + 999)).toBe(first);
    // Any claim that differs (here the status) is signed anew.
    const suspended = memoised({ ...claims, status: "suspended" }, "license-id-3", 600, now + 10);
    expect(suspended).not.toBe(first);
    expect(suspended).toBe(fresh()({ ...claims, status: "suspended" }, "license-id-3", 600, now + 10));
    // The next second: a new iat, a new signature.
    const later = memoised(claims, "license-id-3", 600, now + 1_000);
    expect(later).not.toBe(first);
    expect(later).toBe(fresh()(claims, "license-id-3", 600, now + 1_000));
  });

  it("signs tokens the published public key verifies, expiring after the TTL", async () => {
    const signer = createLicenseSigner({ pem: null, dataDir: null });
    const token = await signer.sign(claims, "license-id-2", 3_600);
    const key = await importJWK(signer.publicJwk, "EdDSA");
    const { payload, protectedHeader } = await jwtVerify(token, key, {
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      algorithms: ["EdDSA"],
    });
    expect(protectedHeader).toEqual({ alg: "EdDSA", kid: signer.kid, typ: "JWT" });
    expect(payload).toMatchObject({ ...claims, sub: "license-id-2" });
    expect(payload.exp! - payload.iat!).toBe(3_600);
    // A token altered after signing does not verify.
    const [head, body, signature] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ ...payload, tier: "pro" })).toString("base64url");
    await expect(jwtVerify(`${head}.${forged}.${signature}`, key)).rejects.toThrow();
    expect(body).not.toBe(forged);
  });
});
