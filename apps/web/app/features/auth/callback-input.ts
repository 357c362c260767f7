/**
 * What arrived at /auth/callback (spec section 4), in order of precedence: an error parameter, a token in
 * the address, a code (with optional state), an encoded state in the path, or nothing at all.
 */
export type CallbackInput =
  | { kind: "error"; error: string }
  | { kind: "token"; token: string }
  | { kind: "code"; code: string; state?: string; iss?: string }
  | { kind: "path-state"; state: string | null }
  | { kind: "none" };

const CALLBACK_PATH = "/auth/callback";
/**
 * OAuth error codes are short words (RFC 6749 §4.1.2.1: access_denied, invalid_request…). Only such a code is
 * shown: anyone can send a link to this page, and free text (error_description) would let a stranger's words
 * appear on the site ("Your account is locked, call …").
 */
const ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

export function readCallbackInput(pathname: string, search: string): CallbackInput {
  const params = new URLSearchParams(search);
  const error = params.get("error");
  if (error) return { kind: "error", error: ERROR_CODE.test(error) ? error : "unknown_error" };
  const token = params.get("token");
  if (token) return { kind: "token", token };
  const code = params.get("code");
  if (code) {
    return {
      kind: "code",
      code,
      ...(params.get("state") ? { state: params.get("state")! } : {}),
      ...(params.get("iss") ? { iss: params.get("iss")! } : {}),
    };
  }
  const rest = pathname.startsWith(CALLBACK_PATH) ? pathname.slice(CALLBACK_PATH.length).replace(/^\/+|\/+$/g, "") : "";
  if (rest) {
    let state: string | null = null;
    try {
      state = decodeURIComponent(rest);
    } catch {
      state = null; // undecodable: still goes to the dashboard
    }
    return { kind: "path-state", state };
  }
  return { kind: "none" };
}
