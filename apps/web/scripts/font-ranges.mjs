// The characters of the self-hosted Inter subset (scripts/subset-font.mjs); app.css declares the same unicode-range.
/** Printable ASCII, no-break space, and the typography the content uses (©·×é – — ‘ ’ “ ” • … ‹ › € ™ ← ↑ → ↓). */
export const RANGES = [
  [0x20, 0x7e],
  [0xa0, 0xa0],
  [0xa9, 0xa9],
  [0xb7, 0xb7],
  [0xd7, 0xd7],
  [0xe9, 0xe9],
  [0x2013, 0x2014],
  [0x2018, 0x2019],
  [0x201c, 0x201d],
  [0x2022, 0x2022],
  [0x2026, 0x2026],
  [0x2039, 0x203a],
  [0x20ac, 0x20ac],
  [0x2122, 0x2122],
  [0x2190, 0x2193],
];

const hex = (code) => code.toString(16).toUpperCase().padStart(4, "0");

/** The CSS unicode-range of RANGES. */
export function unicodeRange() {
  return RANGES.map(([from, to]) => (from === to ? `U+${hex(from)}` : `U+${hex(from)}-${hex(to)}`)).join(", ");
}
