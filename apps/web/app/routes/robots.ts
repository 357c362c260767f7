import { CLIENT_ONLY_PATHS } from "@flotilla/contracts";
import { absoluteUrl } from "../lib/seo";

export function loader() {
  const disallow = [...CLIENT_ONLY_PATHS, "/api/"].map((path) => `Disallow: ${path}`).join("\n");
  const body = `User-agent: *\nAllow: /\n${disallow}\n\nSitemap: ${absoluteUrl("/sitemap.xml")}\n`;
  return new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
