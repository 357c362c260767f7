/**
 * Sign-in rule (ARCHITECTURE.md): a return target taken from a URL is only ever a same-origin path.
 * `/x` is kept; `//x`, `/\x`, `https:…`, control characters and anything that a browser would resolve
 * to another origin become the default.
 */
export const DEFAULT_RETURN_PATH = "/dashboard";
const MAX_RETURN_PATH_LENGTH = 512;
const PROBE_ORIGIN = "https://return-path.invalid";

/** Backslashes and control characters (code points below 0x20, and 0x7f). */
function hasUnsafeCharacters(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}

export function safeReturnPath(candidate: unknown, fallback: string = DEFAULT_RETURN_PATH): string {
  if (typeof candidate !== "string" || candidate.length === 0 || candidate.length > MAX_RETURN_PATH_LENGTH) {
    return fallback;
  }
  // Browsers treat "\" like "/" and drop tabs and newlines, so "/\evil" and "/\t/evil" mean "//evil".
  if (!candidate.startsWith("/") || hasUnsafeCharacters(candidate)) return fallback;
  if (candidate.startsWith("//")) return fallback;
  let resolved: URL;
  try {
    resolved = new URL(candidate, PROBE_ORIGIN);
  } catch {
    return fallback;
  }
  if (resolved.origin !== PROBE_ORIGIN) return fallback;
  // Decoded forms can hide the same tricks ("/%2F%2Fevil" after a second decode); refuse them too.
  let decoded = candidate;
  try {
    decoded = decodeURIComponent(candidate);
  } catch {
    return fallback;
  }
  if (decoded.startsWith("//") || hasUnsafeCharacters(decoded)) return fallback;
  const result = `${resolved.pathname}${resolved.search}${resolved.hash}`;
  // Dot segments can collapse into a protocol-relative path ("/.//evil" → "//evil").
  if (result.startsWith("//")) return fallback;
  return result;
}
