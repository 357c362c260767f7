import { z } from "zod";
import { ApiErrorSchema } from "./api-errors";
import { SESSION_END_REASONS } from "./session-end";

/** A signed-in customer as the web app sees it (spec section 3: name and avatar_url are read). */
export const CustomerSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  avatar_url: z.string().nullable(),
});
export type Customer = z.infer<typeof CustomerSchema>;

/**
 * The signed-in user as the session answers it: the customer, and whether they may open the operator's console
 * (an admin's user menu links to it). The server checks the role again on every /api/admin request: this flag only
 * decides what the menu shows.
 */
export const SignedInUserSchema = CustomerSchema.extend({
  is_admin: z.boolean().describe("Whether this customer may open the operator's console (/admin)"),
});
export type SignedInUser = z.infer<typeof SignedInUserSchema>;

/**
 * Body of the identity-provider URL endpoint (spec section 7). `redirectUrl` is accepted for
 * compatibility but ignored: the server builds the redirect URI from its own public origin.
 * `state` is the client's wished return path; it is sanitised and kept server-side.
 */
export const AuthUrlRequestSchema = z.object({
  redirectUrl: z.string().max(2048).optional(),
  state: z.string().max(2048).optional(),
});
export const AuthUrlResponseSchema = z.object({ success: z.literal(true), authUrl: z.string() });

export const GoogleCallbackRequestSchema = z.object({
  code: z.string().min(1, "code is required").max(4096),
  state: z.string().max(2048).optional(),
  /** RFC 9207 issuer identifier from the callback address, forwarded when the provider sent one. */
  iss: z.string().max(2048).optional(),
});
export const GoogleCallbackResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    token: z.string(),
    customer: SignedInUserSchema,
    /** The sanitised same-origin path the sign-in started from. */
    redirectTo: z.string(),
    expires_at: z.string(),
  }),
});

export const ValidateResponseSchema = z.object({ success: z.literal(true), user: SignedInUserSchema });
export const RefreshResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ token: z.string(), expires_at: z.string() }),
});
export const ProfileResponseSchema = z.object({
  success: z.literal(true),
  data: CustomerSchema.extend({ created_at: z.string(), last_sign_in_at: z.string().nullable() }),
});
export const LogoutResponseSchema = z.object({ success: z.literal(true), message: z.string() });
export const LogoutEverywhereResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  /** How many sessions were signed out, this one included. */
  revoked: z.number().int(),
});

// Zod-free, so the portal can read a 401's reason without shipping schemas.
export { SESSION_END_REASONS, type SessionEndReason } from "./session-end";
export const SessionEndReasonSchema = z.enum(SESSION_END_REASONS);

/**
 * A 401's body: the error, and — for INVALID_SESSION, when the server knows it — why the session ended (decision
 * 0056). Only a token that really was a session gets a reason; an unknown one gets none.
 */
export const SessionRefusalSchema = ApiErrorSchema.extend({
  reason: SessionEndReasonSchema.optional().describe(
    "Why the session ended, when the server knows it: `signed_out` (revoked: signed out here or everywhere, or the token was rotated), `expired` (past its idle or absolute limit), `account_erased` (a privacy request erased the account; signing in again creates a new, empty one). Absent for a token the server never issued.",
  ),
});

/** Server-side messages of the sign-in endpoints. */
export const AUTH_ERRORS = {
  missingToken: "Authentication required",
  invalidSession: "Your session is invalid or has expired. Please sign in again.",
  invalidTransaction: "This sign-in link is invalid or has expired. Please start again.",
  otherBrowser: "This sign-in was started in another browser. Please start again in this one.",
  tokenNotFromThisBrowser: "This sign-in link belongs to another browser. Please sign in here.",
  exchangeFailed: "Authentication failed",
  providerUnavailable: "The identity provider could not be reached. Please try again.",
} as const;
