/**
 * The development identity provider: a real OpenID Connect issuer (oidc-provider) mounted in this
 * process at /oidc, so that a fresh clone can sign in without a Google account. Its sign-in page asks
 * for an Email and a Name, no password. Built only where exposure.ts allows it: loopback outside production, or
 * DEV_SIGN_IN=true on an exposed non-production server.
 *
 * The relying party reaches it through `app.inject` (discovery, token and key requests never leave
 * the process); browsers reach it through the public origin.
 */
import { createHmac, generateKeyPairSync, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { EmailSchema } from "@flotilla/contracts/signup";
import { isSafeDisplayText, UNSAFE_TEXT_MESSAGE } from "@flotilla/contracts/text";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Configuration, KoaContextWithOIDC } from "oidc-provider";
import type { CustomFetch } from "openid-client";
import type { Database } from "../../db/client";
import { createDevIssuerStorage, devSubject } from "./dev-issuer-store";
import { renderDevSignInPage } from "./dev-sign-in-page";
import type { RelyingPartyOptions } from "./identity-provider";
import { loadOidcProvider } from "./oidc-provider-module";

export const DEV_ISSUER_PATH = "/oidc";
const CLIENT_ID = "flotilla-web";
const MAX_FORM_BYTES = 4 * 1024;

interface DevAccount {
  email: string;
  name: string;
}

/** Accounts signed in through the form only need to outlive one sign-in: the ID token carries their claims. */
const ACCOUNT_TTL_SECONDS = 60 * 60;

export async function mountDevelopmentIssuer(
  app: FastifyInstance,
  options: {
    db: Database;
    publicOrigin: string;
    secret: string;
    redirectUri: string;
    reason: "loopback" | "opt-in";
    perMinute: number;
  },
): Promise<RelyingPartyOptions> {
  // Loaded only when used: a production configuration never imports the development issuer's library.
  const { default: Provider } = await loadOidcProvider();
  const issuer = `${options.publicOrigin}${DEV_ISSUER_PATH}`;
  const clientSecret = createHmac("sha256", options.secret).update("dev-issuer-client").digest("base64url");
  const storage = createDevIssuerStorage(options.db, options.secret);
  // Shared by every instance (dev-issuer-store.ts): the first one to start creates it.
  const signingKey = await storage.getOrCreate("SigningKey", "dev-issuer", () =>
    generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }),
  );

  const configuration: Configuration = {
    adapter: storage.Adapter,
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: "dev-1", use: "sig", alg: "RS256" } as never] },
    cookies: { keys: [createHmac("sha256", options.secret).update("dev-issuer-cookies").digest("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "picture"] },
    // Like Google: the ID token itself carries email and name.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    // Short lifetimes: these artifacts only need to outlive one sign-in.
    ttl: {
      Session: 60 * 60,
      Grant: 60 * 60,
      Interaction: 10 * 60,
      AuthorizationCode: 60,
      AccessToken: 5 * 60,
      IdToken: 5 * 60,
    },
    pkce: { required: () => true },
    interactions: { url: (_ctx, interaction) => `${DEV_ISSUER_PATH}/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => {
      const account = await storage.get<DevAccount>("DevAccount", sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: account.email, email_verified: true, name: account.name }),
      };
    },
    // A first-party client: consent is implied, so the only interaction is the sign-in form.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const clientId = ctx.oidc.client?.clientId;
      const accountId = ctx.oidc.session?.accountId;
      if (!clientId || !accountId) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(clientId);
      if (grantId) {
        const existing = await ctx.oidc.provider.Grant.find(grantId);
        if (existing) return existing;
      }
      const grant = new ctx.oidc.provider.Grant({ clientId, accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
    renderError: (ctx, out) => {
      ctx.type = "text/plain; charset=utf-8";
      ctx.body = `Sign-in error: ${out.error_description ?? out.error}`;
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.proxy = true;
  const callback = provider.callback();

  // Everything under /oidc except the interaction pages: hand the raw request to the provider.
  app.register(async (scope) => {
    // The provider parses its own bodies: leave the stream unread.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
    const handler = (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      const raw = request.raw as IncomingMessage & { originalUrl?: string };
      raw.originalUrl = raw.url;
      raw.url = raw.url?.slice(DEV_ISSUER_PATH.length) || "/";
      callback(raw, reply.raw);
    };
    // Limited like the API: every call may write a row of shared storage.
    const limited = { schema: { hide: true }, config: { rateLimit: { max: options.perMinute, timeWindow: 60_000 } } };
    scope.all(DEV_ISSUER_PATH, limited, handler);
    scope.all(`${DEV_ISSUER_PATH}/*`, limited, handler);
  });

  // The sign-in form.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: MAX_FORM_BYTES },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    const page = (
      reply: FastifyReply,
      status: number,
      props: Omit<Parameters<typeof renderDevSignInPage>[0], "styleNonce" | "reason">,
    ) => {
      const styleNonce = randomBytes(16).toString("base64");
      return reply
        .code(status)
        .header("cache-control", "no-store")
        .header(
          "content-security-policy",
          `default-src 'none'; style-src 'nonce-${styleNonce}'; form-action 'self' ${options.publicOrigin}; frame-ancestors 'none'; base-uri 'none'`,
        )
        .type("text/html; charset=utf-8")
        .send(renderDevSignInPage({ ...props, styleNonce, reason: options.reason }));
    };

    scope.get<{ Params: { uid: string } }>(
      `${DEV_ISSUER_PATH}/interaction/:uid`,
      { schema: { hide: true } },
      async (request, reply) => {
        try {
          const details = await provider.interactionDetails(request.raw, reply.raw);
          return page(reply, 200, { action: `${DEV_ISSUER_PATH}/interaction/${details.uid}` });
        } catch {
          return reply
            .code(400)
            .type("text/plain; charset=utf-8")
            .send("This sign-in has expired. Start again from the site.");
        }
      },
    );

    scope.post<{ Params: { uid: string }; Body: Record<string, string> | undefined }>(
      `${DEV_ISSUER_PATH}/interaction/:uid`,
      { schema: { hide: true }, config: { rateLimit: { max: options.perMinute, timeWindow: 60_000 } } },
      async (request, reply) => {
        const action = `${DEV_ISSUER_PATH}/interaction/${encodeURIComponent(request.params.uid)}`;
        const email = String(request.body?.email ?? "").trim();
        const name = String(request.body?.name ?? "").trim();
        const emailCheck = EmailSchema.safeParse(email);
        if (!emailCheck.success)
          return page(reply, 400, { action, email, name, error: emailCheck.error.issues[0]?.message });
        if (!isSafeDisplayText(email)) {
          return page(reply, 400, { action, email, name, error: "Please enter a valid email address" });
        }
        if (!name) return page(reply, 400, { action, email, name, error: "Name is required" });
        if (name.length > 100) return page(reply, 400, { action, email, name, error: "Name is too long" });
        if (!isSafeDisplayText(name)) {
          return page(reply, 400, { action, email, name, error: `Name ${UNSAFE_TEXT_MESSAGE}` });
        }

        const accountId = devSubject(email);
        await storage.put("DevAccount", accountId, { email, name }, ACCOUNT_TTL_SECONDS);
        try {
          await provider.interactionDetails(request.raw, reply.raw);
        } catch {
          return reply
            .code(400)
            .type("text/plain; charset=utf-8")
            .send("This sign-in has expired. Start again from the site.");
        }
        reply.hijack();
        await provider.interactionFinished(
          request.raw,
          reply.raw,
          { login: { accountId } },
          { mergeWithLastSubmission: false },
        );
      },
    );
  });

  /** Server-to-issuer requests, answered in process. */
  const fetchInProcess: CustomFetch = async (url, init) => {
    const target = new URL(url);
    const headers: Record<string, string> = {
      ...init.headers,
      host: target.host,
      "x-forwarded-proto": target.protocol.slice(0, -1),
    };
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    const response = await app.inject({
      method: init.method as "GET" | "POST",
      url: `${target.pathname}${target.search}`,
      headers,
      ...(body === undefined ? {} : { payload: body }),
    });
    const responseHeaders = new Headers();
    for (const [key, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(key, String(item));
    }
    const nullBody = response.statusCode === 204 || response.statusCode === 304;
    return new Response(nullBody ? null : response.rawPayload, {
      status: response.statusCode,
      headers: responseHeaders,
    });
  };

  return { issuer, clientId: CLIENT_ID, clientSecret, fetch: fetchInProcess, allowHttp: true };
}
