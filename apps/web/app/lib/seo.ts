import { BRAND } from "@flotilla/contracts";

/** The public origin baked into canonical URLs at build time (PUBLIC_ORIGIN), defaulting to the local server. */
export const SITE_ORIGIN: string = (import.meta.env.VITE_PUBLIC_ORIGIN as string | undefined) ?? BRAND.defaultOrigin;

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
