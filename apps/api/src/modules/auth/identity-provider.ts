/**
 * The OpenID Connect relying party (openid-client): authorization code flow with PKCE (S256), state and
 * nonce. The issuer is Google in production, or the in-process development issuer; discovery happens on
 * first use and is retried after a failure.
 */
import { stripUnsafeText } from "@flotilla/contracts/text";
import * as oidc from "openid-client";

export interface SignInRequest {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
}

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string;
  name: string;
  avatarUrl: string | null;
}

export interface IdentityProvider {
  authorizationUrl(request: SignInRequest): Promise<string>;
  /** Exchanges the code and verifies the ID token (signature, issuer, audience, nonce, PKCE). */
  exchange(callbackUrl: URL, request: Omit<SignInRequest, "redirectUri">): Promise<VerifiedIdentity>;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters being refused.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** The provider refused or the response failed verification: the client's fault, never a 5xx. */
export class SignInRejected extends Error {}
/** The provider could not be reached or answered nonsense. */
export class ProviderUnavailable extends Error {}

export interface RelyingPartyOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Requests to the issuer go through this fetch (the development issuer is called in process). */
  fetch?: oidc.CustomFetch;
  /** Allow http:// issuers (the development issuer on localhost). */
  allowHttp?: boolean;
}

export function createRelyingParty(options: RelyingPartyOptions): IdentityProvider {
  let configuration: Promise<oidc.Configuration> | null = null;
  const discover = () => {
    configuration ??= oidc
      .discovery(new URL(options.issuer), options.clientId, options.clientSecret, undefined, {
        ...(options.fetch ? { [oidc.customFetch]: options.fetch } : {}),
        ...(options.allowHttp ? { execute: [oidc.allowInsecureRequests] } : {}),
        timeout: 10,
      })
      .catch((error: unknown) => {
        configuration = null;
        throw new ProviderUnavailable(`OpenID Connect discovery failed: ${(error as Error).message}`);
      });
    return configuration;
  };

  return {
    async authorizationUrl(request) {
      const config = await discover();
      return oidc
        .buildAuthorizationUrl(config, {
          redirect_uri: request.redirectUri,
          response_type: "code",
          scope: "openid email profile",
          state: request.state,
          nonce: request.nonce,
          code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
          code_challenge_method: "S256",
          // Google: let people with several accounts pick one (other issuers may not support it).
          ...(new URL(options.issuer).hostname === "accounts.google.com" ? { prompt: "select_account" } : {}),
        })
        .toString();
    },

    async exchange(callbackUrl, request) {
      const config = await discover();
      // RFC 9207: issuers that announce it add `iss` to the callback. The web app forwards it when present;
      // a client that only sends code and state gets the expected value (there is a single issuer, so no
      // mix-up is possible).
      if (
        !callbackUrl.searchParams.has("iss") &&
        config.serverMetadata().authorization_response_iss_parameter_supported
      ) {
        callbackUrl.searchParams.set("iss", config.serverMetadata().issuer);
      }
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: request.codeVerifier,
          expectedState: request.state,
          expectedNonce: request.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
          throw new SignInRejected(error.error);
        }
        if (error instanceof TypeError || (error as Error).name === "AbortError") {
          throw new ProviderUnavailable((error as Error).message);
        }
        // Failed checks (nonce, issuer, audience, signature, state) land here.
        throw new SignInRejected((error as Error).message);
      }
      const claims = tokens.claims();
      if (!claims?.sub) throw new SignInRejected("ID token without a subject");
      const email = typeof claims.email === "string" ? claims.email : "";
      // Admin rights and accounts hang on the address: only the provider's explicit `true` vouches for it (a
      // missing claim, or the string "true", does not).
      if (!email || claims.email_verified !== true) throw new SignInRejected("A verified email address is required");
      // PostgreSQL text cannot hold NUL (the insert would fail as a 500); no real address has control characters.
      if (CONTROL_CHARACTERS.test(email)) throw new SignInRejected("The email address has invalid characters");
      // Names are shown in lists: no control, direction-changing or invisible characters, whatever the provider sends.
      const claimedName = typeof claims.name === "string" ? stripUnsafeText(claims.name).trim() : "";
      const name = claimedName || email.split("@")[0]!;
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email,
        name,
        avatarUrl: typeof claims.picture === "string" && /^https:\/\//.test(claims.picture) ? claims.picture : null,
      };
    },
  };
}
