/**
 * The site's stills come in two widths (scripts/video/stills.mjs): the full image and a copy for phones
 * named `<name>-<width>w.webp`. This builds the `srcset` for an image of ours; other images get none.
 */
const SMALLER_WIDTH: Record<string, { full: number; small: number }> = {
  "/images/docs/": { full: 1600, small: 800 },
  "/images/blog/": { full: 1200, small: 800 },
};

export function responsiveSrcSet(src: string): string | undefined {
  const folder = Object.keys(SMALLER_WIDTH).find((prefix) => src.startsWith(prefix));
  if (!folder || !src.endsWith(".webp")) return undefined;
  const { full, small } = SMALLER_WIDTH[folder]!;
  return `${src.replace(/\.webp$/, `-${small}w.webp`)} ${small}w, ${src} ${full}w`;
}
