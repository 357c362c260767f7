import { BRAND, PUBLIC_ORIGIN_PLACEHOLDER } from "@flotilla/contracts";

/**
 * The origin of absolute URLs (canonical links, Open Graph, sitemap, feeds): a placeholder in the build, replaced
 * by the server's PUBLIC_ORIGIN when it starts (docs/decisions/0024), so one build serves any domain. Relative
 * links stay relative. (`react-router dev` has no server to replace it: there the placeholder shows.)
 */
export const SITE_ORIGIN: string = PUBLIC_ORIGIN_PLACEHOLDER;

export function absoluteUrl(path: string): string {
  return new URL(path, SITE_ORIGIN).toString();
}

interface SeoInput {
  title: string;
  description: string;
  path: string;
  image?: string;
  type?: "website" | "article";
  noindex?: boolean;
}

/** Title, description, canonical link and Open Graph/Twitter tags for a page's `meta` export. */
export function seo({
  title,
  description,
  path,
  image = "/images/og-default.png",
  type = "website",
  noindex,
}: SeoInput) {
  const fullTitle = title.includes(BRAND.name) ? title : `${title} · ${BRAND.name}`;
  const url = absoluteUrl(path);
  return [
    { title: fullTitle },
    { name: "description", content: description },
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:site_name", content: BRAND.name },
    { property: "og:type", content: type },
    { property: "og:title", content: fullTitle },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    { property: "og:image", content: absoluteUrl(image) },
    { name: "twitter:card", content: "summary_large_image" },
    ...(noindex ? [{ name: "robots", content: "noindex" }] : []),
  ];
}
