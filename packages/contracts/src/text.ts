/**
 * Text that other people will read in a list (machine names, signup names, companies): printable, and unable
 * to disguise itself. Refused: control and format characters (bidirectional overrides and isolates — U+202E turns
 * "gpj.exe" into "exe.jpg" on screen — zero-width and invisible separators, soft hyphens, tag characters), line
 * and paragraph separators, private-use and unassigned code points, blank-looking fillers, and lone UTF-16
 * surrogates (not text at all). The zero-width joiner stays: emoji sequences need it.
 */
// \p{Cs} matches only lone surrogates under the u flag: a well-formed pair is one code point.
const UNSAFE = /(?!\u200d)[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Co}\p{Cn}\u115f\u1160\u2800\u3164\uffa0]/u;

export const UNSAFE_TEXT_MESSAGE = "contains invisible or direction-changing characters";

export function isSafeDisplayText(value: string): boolean {
  return !UNSAFE.test(value);
}

const UNSAFE_ALL = new RegExp(UNSAFE.source, "gu");

/** The same text without the characters isSafeDisplayText refuses: for names we must accept (an identity provider's). */
export function stripUnsafeText(value: string): string {
  return value.replace(UNSAFE_ALL, "");
}
