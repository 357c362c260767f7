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
 * The origin the site is built with, wherever an absolute URL is needed (canonical links, Open Graph, sitemap,
 * feeds, robots.txt). The server replaces it with its PUBLIC_ORIGIN when it starts (apps/api/src/plugins/site.ts),
 * so one build serves any domain; `.invalid` can never resolve (RFC 2606), so a leak is harmless and easy to spot.
 */
export const PUBLIC_ORIGIN_PLACEHOLDER = "https://public-origin.flotilla.invalid";
