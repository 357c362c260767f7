/**
 * Issue 22: admin rights are granted by email, so sign-in must trust an address only when the identity provider says
 * it verified it — `email_verified: true`, nothing less (a missing claim, or the string "true", is not that). An
 * issuer under the test's control signs whatever ID token claims each case needs; the relying party is the real one.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRelyingParty, SignInRejected } from "../src/modules/auth/identity-provider";

const CLIENT_ID = "claims-client";
let issuer: Server;
let issuerUrl: string;
/** The claims the next ID token carries, besides the protocol's own. */
let claims: Record<string, unknown> = {};
let nonce = "";

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "claims-1", alg: "RS256", use: "sig" };
  issuer = createServer((request, response) => {
    const json = (body: unknown) => {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(body));
    };
    if (request.url === "/.well-known/openid-configuration") {
      return json({
        issuer: issuerUrl,
        authorization_endpoint: `${issuerUrl}/auth`,
        token_endpoint: `${issuerUrl}/token`,
        jwks_uri: `${issuerUrl}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
      });
    }
    if (request.url === "/jwks") return json({ keys: [jwk] });
    if (request.url === "/token" && request.method === "POST") {
      request.resume();
      request.on("end", async () => {
        const idToken = await new SignJWT({ email: "mallory@example.com", nonce, ...claims })
          .setProtectedHeader({ alg: "RS256", kid: "claims-1" })
          .setIssuer(issuerUrl)
          .setAudience(CLIENT_ID)
          .setSubject("mallory-1")
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(privateKey);
        json({ access_token: "at", token_type: "Bearer", expires_in: 300, id_token: idToken });
      });
      return;
    }
    response.statusCode = 404;
    response.end();
  });
  await new Promise<void>((resolve) => issuer.listen(0, "127.0.0.1", resolve));
  issuerUrl = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
});
afterAll(() => {
  issuer.close();
});

async function signInWith(idTokenClaims: Record<string, unknown>) {
  claims = idTokenClaims;
  nonce = `nonce-${Math.random()}`;
  const rp = createRelyingParty({ issuer: issuerUrl, clientId: CLIENT_ID, clientSecret: "secret", allowHttp: true });
  const callback = new URL("http://localhost:3000/auth/callback?code=the-code&state=the-state");
  return rp.exchange(callback, { state: "the-state", nonce, codeVerifier: "v".repeat(43) });
}

describe("sign-in trusts an email address only when the provider verified it", () => {
  it("email_verified: true signs in (the provider's word)", async () => {
    expect(await signInWith({ email_verified: true })).toMatchObject({ email: "mallory@example.com" });
  });

  it('a missing email_verified claim, the string "true", or false are refused', async () => {
    for (const variant of [{}, { email_verified: "true" }, { email_verified: false }, { email_verified: 1 }]) {
      await expect(signInWith(variant), JSON.stringify(variant)).rejects.toBeInstanceOf(SignInRejected);
    }
  });
});
