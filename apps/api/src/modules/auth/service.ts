/**
 * Sign-in rules: server-generated state, nonce and PKCE kept in a single-use login transaction bound to the
 * browser that started it (a random HttpOnly cookie whose SHA-256 the transaction keeps); the redirect URI built
 * from the public origin; the return path sanitised; sessions as opaque tokens of which only the SHA-256 is
 * stored, with a sliding expiry inside an absolute lifetime.
 */
import { AUTH_ERRORS, type Customer, type SessionEndReason } from "@flotilla/contracts/auth";
import { DEFAULT_RETURN_PATH, safeReturnPath } from "@flotilla/contracts/return-path";
import * as oidc from "openid-client";
import type { Database } from "../../db/client";
import { newOpaqueToken, sha256Hex } from "../../lib/tokens";
import { HttpProblem } from "../../plugins/errors";
import { acceptInvitation } from "../beta/testers";
import { recordEvent } from "../events/record";
import { type IdentityProvider, ProviderUnavailable, SignInRejected } from "./identity-provider";
import * as q from "./queries";

export const LOGIN_TRANSACTION_TTL_MS = 10 * 60 * 1000;
/** A session's expiry is pushed forward at most this often, so validation is usually a single read. */
const SESSION_TOUCH_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface AuthenticatedSession {
  sessionId: string;
  /** The SHA-256 of its token (never the token): how the session's end is looked up, should it end mid-request. */
  tokenHash: string;
  customer: q.CustomerRow;
  expiresAt: Date;
  absoluteExpiresAt: Date;
  browserHash: string | null;
}

/**
 * The sanitised return path, never a protocol-relative "//host": safeReturnPath resolves dot segments, so
 * "/.//evil.example" and "/%2e%2e//evil.example" come back as "//evil.example", which a browser leaves for.
 */
export function serverReturnPath(requested: string | undefined): string {
  const path = safeReturnPath(requested);
  return path.startsWith("//") ? DEFAULT_RETURN_PATH : path;
}

/** Token lengths a session could have: anything else is refused without a query. */
function plausibleToken(token: string): boolean {
  return token.length >= 20 && token.length <= 200;
}

/**
 * Why a kept session row no longer signs in at `now` (decision 0056): revoked before it ran out → `signed_out`;
 * past its sliding or absolute end → `expired` (even if revoked after: sign-out everywhere stamps expired rows too);
 * still live → null.
 */
export function sessionEndReason(
  row: { revokedAt: Date | null; expiresAt: Date; absoluteExpiresAt: Date },
  now: Date,
): SessionEndReason | null {
  const runsOut = Math.min(row.expiresAt.getTime(), row.absoluteExpiresAt.getTime());
  if (row.revokedAt && row.revokedAt.getTime() < runsOut) return "signed_out";
  return runsOut <= now.getTime() ? "expired" : null;
}

export function toCustomer(row: q.CustomerRow): Customer {
  return { id: row.id, email: row.email, name: row.name, avatar_url: row.avatarUrl };
}

export class AuthService {
  constructor(
    private readonly db: Database,
    private readonly idp: IdentityProvider,
    private readonly options: {
      publicOrigin: string;
      sessionTtlDays: number;
      sessionMaxDays: number;
      now?: () => Date;
    },
  ) {}

  private now() {
    return this.options.now?.() ?? new Date();
  }

  get redirectUri(): string {
    return `${this.options.publicOrigin}/auth/callback`;
  }

  /** The sliding expiry from `from`, never past the session's absolute end. */
  private sessionExpiry(from: Date, absoluteEnd: Date): Date {
    return new Date(Math.min(from.getTime() + this.options.sessionTtlDays * DAY_MS, absoluteEnd.getTime()));
  }

  /**
   * Starts a sign-in for the browser holding `browserSecret` (the sign-in cookie): stores the transaction and
   * returns the provider's authorization URL.
   */
  async start(requestedReturnPath: string | undefined, browserSecret: string): Promise<string> {
    const now = this.now();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    let authUrl: string;
    try {
      authUrl = await this.idp.authorizationUrl({ state, nonce, codeVerifier, redirectUri: this.redirectUri });
    } catch (error) {
      if (error instanceof ProviderUnavailable)
        throw new HttpProblem(503, AUTH_ERRORS.providerUnavailable, "PROVIDER_UNAVAILABLE");
      throw error;
    }
    await q.insertLoginTransaction(this.db, {
      stateHash: sha256Hex(state),
      codeVerifier,
      nonce,
      returnPath: serverReturnPath(requestedReturnPath),
      browserHash: sha256Hex(browserSecret),
      expiresAt: new Date(now.getTime() + LOGIN_TRANSACTION_TTL_MS),
    });
    return authUrl;
  }

  /**
   * Finishes a sign-in: consumes the transaction — only from the browser that started it — exchanges the code,
   * upserts the customer and opens a session bound to that browser.
   */
  async complete(code: string, state: string | undefined, browserSecret: string | null, iss?: string) {
    if (!state) throw new HttpProblem(400, AUTH_ERRORS.invalidTransaction, "INVALID_STATE");
    const now = this.now();
    const stateHash = sha256Hex(state);
    const browserHash = browserSecret ? sha256Hex(browserSecret) : null;
    const transaction = browserHash ? await q.consumeLoginTransaction(this.db, stateHash, browserHash, now) : null;
    if (!transaction) {
      if (await q.liveLoginTransactionExists(this.db, stateHash, now)) {
        throw new HttpProblem(400, AUTH_ERRORS.otherBrowser, "BROWSER_MISMATCH");
      }
      throw new HttpProblem(400, AUTH_ERRORS.invalidTransaction, "INVALID_STATE");
    }

    const callbackUrl = new URL(this.redirectUri);
    callbackUrl.searchParams.set("code", code);
    callbackUrl.searchParams.set("state", state);
    // Present but empty is still an issuer identifier (RFC 9207), and it is not the expected one.
    if (iss !== undefined) callbackUrl.searchParams.set("iss", iss);
    let identity: Awaited<ReturnType<IdentityProvider["exchange"]>>;
    try {
      identity = await this.idp.exchange(callbackUrl, {
        state,
        nonce: transaction.nonce,
        codeVerifier: transaction.codeVerifier,
      });
    } catch (error) {
      if (error instanceof SignInRejected) throw new HttpProblem(400, AUTH_ERRORS.exchangeFailed, "SIGN_IN_REJECTED");
      if (error instanceof ProviderUnavailable)
        throw new HttpProblem(503, AUTH_ERRORS.providerUnavailable, "PROVIDER_UNAVAILABLE");
      throw error;
    }

    const customer = await this.db.transaction(async (tx) => {
      const row = await q.upsertCustomer(tx as unknown as Database, identity, now);
      if (row.createdAt.getTime() === row.updatedAt.getTime()) {
        await recordEvent(tx, {
          type: "customer.created",
          actor: { type: "customer", id: row.id, email: row.email },
          target: { type: "customer", id: row.id },
          customerId: row.id,
          before: null,
          after: { email: row.email, name: row.name },
        });
      }
      // A beta invitation for exactly this address is accepted by signing in with it (decision 0062).
      await acceptInvitation(tx, row, now);
      return row;
    });
    const token = newOpaqueToken();
    const absoluteExpiresAt = new Date(now.getTime() + this.options.sessionMaxDays * DAY_MS);
    const expiresAt = this.sessionExpiry(now, absoluteExpiresAt);
    await q.insertSession(this.db, {
      tokenHash: sha256Hex(token),
      customerId: customer.id,
      expiresAt,
      absoluteExpiresAt,
      browserHash: transaction.browserHash,
    });
    return { token, customer: toCustomer(customer), redirectTo: transaction.returnPath, expiresAt };
  }

  /**
   * The live session behind a bearer token, or null. Extends the sliding expiry at most hourly, never past the
   * absolute end.
   */
  async authenticate(token: string): Promise<AuthenticatedSession | null> {
    if (!plausibleToken(token)) return null;
    const now = this.now();
    const tokenHash = sha256Hex(token);
    const found = await q.findLiveSession(this.db, tokenHash, now);
    if (!found) return null;
    const { session } = found;
    let expiresAt = session.expiresAt;
    if (now.getTime() - session.lastUsedAt.getTime() > SESSION_TOUCH_INTERVAL_MS) {
      expiresAt = this.sessionExpiry(now, session.absoluteExpiresAt);
      await q.touchSession(this.db, session.id, now, expiresAt);
    }
    return {
      sessionId: session.id,
      tokenHash,
      customer: found.customer,
      expiresAt,
      absoluteExpiresAt: session.absoluteExpiresAt,
      browserHash: session.browserHash,
    };
  }

  /**
   * Why a token no longer signs in, when the service knows (decision 0056): from its session row while it is kept
   * (RETENTION.endedSessionMs after it ended), or `account_erased` from an erasure's tombstone. Null for a token that
   * was never a session — only a token whose hash really was one gets an answer — and for a live one.
   */
  async endReason(token: string): Promise<SessionEndReason | null> {
    if (!plausibleToken(token)) return null;
    return this.endReasonOf(sha256Hex(token));
  }

  private async endReasonOf(tokenHash: string): Promise<SessionEndReason | null> {
    const now = this.now();
    const session = await q.findSessionEnd(this.db, tokenHash);
    if (session) return sessionEndReason(session, now);
    return (await q.erasedSessionExists(this.db, tokenHash, now)) ? "account_erased" : null;
  }

  /**
   * Whether this browser (its sign-in cookie) started the sign-in that created the session. A token found in an
   * address (/auth/callback?token=…) signs a browser in only then: anything else would let a link sign the
   * visitor into someone else's account.
   */
  startedIn(session: AuthenticatedSession, browserSecret: string | null): boolean {
    return Boolean(browserSecret && session.browserHash && session.browserHash === sha256Hex(browserSecret));
  }

  async logout(session: AuthenticatedSession): Promise<void> {
    await q.revokeSession(this.db, session.sessionId, this.now());
  }

  /** Revokes every session of the customer, this one included; returns how many were live. */
  async logoutEverywhere(session: AuthenticatedSession): Promise<number> {
    return q.revokeCustomerSessions(this.db, session.customer.id, this.now());
  }

  /** Issues a new token and revokes the old one; a token can be rotated only once, and never outlives the session. */
  async refresh(session: AuthenticatedSession) {
    const now = this.now();
    const token = newOpaqueToken();
    const expiresAt = this.sessionExpiry(now, session.absoluteExpiresAt);
    const rotated = await q.rotateSession(
      this.db,
      session.sessionId,
      {
        tokenHash: sha256Hex(token),
        customerId: session.customer.id,
        expiresAt,
        absoluteExpiresAt: session.absoluteExpiresAt,
        browserHash: session.browserHash,
      },
      now,
    );
    if (!rotated) {
      // Ended between the guard and here (a concurrent refresh or sign-out, its end, an erasure): say which.
      const reason = await this.endReasonOf(session.tokenHash);
      throw new HttpProblem(401, AUTH_ERRORS.invalidSession, "INVALID_SESSION", undefined, reason ? { reason } : {});
    }
    return { token, expiresAt };
  }
}
