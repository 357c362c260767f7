/** The product's name lives here and only here. */
export const BRAND = {
  name: "Flotilla",
  tagline: "The command centre for AI coding agents",
  description:
    "Flotilla is a desktop command centre that runs local AI coding agents on your tasks, each in its own Git worktree, with shared memory, MCP servers and a review step before anything merges.",
  copyrightYear: 2025,
  supportEmail: "support@flotilla.dev",
} as const;

/**
 * Who operates the Service: the one setting the Terms, the Privacy Policy and every mail's footer read. Change it
 * here and the pages (built from it) and mails follow.
 */
export const LEGAL_ENTITY = {
  name: "Flotilla Labs Ltd",
  postalAddress: "20 Wharf Road, London N1 7GR, United Kingdom",
  governingLaw: "the laws of England and Wales",
  courts: "the courts of England and Wales",
} as const;

/**
 * Where the community is: the About page's Community section, which lists the channels that exist (early access,
 * the blog, the newsletter, support mail). "Community support" links here.
 */
export const COMMUNITY_URL = "/about#community";

/**
 * The origin the site is built with, wherever an absolute URL is needed (canonical links, Open Graph, sitemap,
 * feeds, robots.txt). The server replaces it with its PUBLIC_ORIGIN when it starts (apps/api/src/plugins/site.ts),
 * so one build serves any domain; `.invalid` can never resolve (RFC 2606), so a leak is harmless and easy to spot.
 */
export const PUBLIC_ORIGIN_PLACEHOLDER = "https://public-origin.flotilla.invalid";
