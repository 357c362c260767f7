/**
 * Why a session stopped answering (decision 0055): a 401 INVALID_SESSION carries it as `reason` when the server
 * knows it, and the portal's "session ended" screen words itself by it. `account_erased`: an operator erased the
 * account (a privacy request); `signed_out`: the session was revoked (signed out here or everywhere); `expired`: it
 * ran past its idle or absolute limit. An unknown token carries no reason.
 */
export const SESSION_END_REASONS = ["expired", "signed_out", "account_erased"] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];
