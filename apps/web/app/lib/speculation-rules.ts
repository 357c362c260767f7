import { STATIC_PUBLIC_PATHS } from "@flotilla/contracts";

/**
 * Content pages link to each other with plain links, so a click is a page load. The browser prerenders the page
 * behind a link the visitor shows intent for (a hover of 200 ms, or the press: "moderate" eagerness), which makes
 * that load as instant as the client-side navigation it replaces. Only prerendered content pages qualify: the
 * portal, the API and the feeds are never fetched ahead.
 */
export const SPECULATION_RULES = JSON.stringify({
  prerender: [
    {
      where: {
        and: [
          { href_matches: [...STATIC_PUBLIC_PATHS, "/docs", "/docs/*", "/blog/*"] },
          { not: { href_matches: ["/blog/rss.xml", "/*\\?*"] } },
        ],
      },
      eagerness: "moderate",
    },
  ],
});
