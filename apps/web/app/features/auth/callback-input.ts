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

export function readCallbackInput(pathname: string, search: string): CallbackInput {
  const params = new URLSearchParams(search);
  const error = params.get("error");
  if (error) return { kind: "error", error: params.get("error_description") || error };
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
