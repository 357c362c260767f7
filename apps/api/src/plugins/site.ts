/**
 * Serves the prerendered site. Static files come straight from the build; page paths map to
 * their prerendered index.html; React Router's .data files back client-side navigations.
 *   - /docs/<anything unknown> shows getting-started (spec), for both HTML and .data requests;
 *   - client-only routes (/login, /dashboard, /auth/callback/*, /newsletter/unsubscribe) get the SPA fallback,
 *     paths beneath them do not (`isClientOnlyPath` in contracts);
 *   - a known page spelled in capitals is redirected to its lower-case address;
 *   - anything else gets the designed 404 page with status 404.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, normalize, relative } from "node:path";
import fastifyStatic from "@fastify/static";
import { DEFAULT_DOC_SLUG, isClientOnlyPath } from "@flotilla/contracts";
import type { FastifyInstance, FastifyReply } from "fastify";
import { pageContentSecurityPolicy } from "./security";

const HTML_CACHE = "public, max-age=0, must-revalidate";
const ASSET_CACHE = "public, max-age=31536000, immutable";
/** What a same-site redirect target may contain (no `\\`, no `//`, nothing that leaves the site). */
const SAFE_PATH = /^\/(?!\/)[a-z0-9/._-]*$/;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g;

/** Hashes every inline script of every built page once at start: each page gets a CSP allowing exactly its own. */
function pagePolicies(root: string, production: boolean): Map<string, string> {
  const policies = new Map<string, string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".html")) {
        const html = readFileSync(path, "utf8");
        const hashes = [...html.matchAll(INLINE_SCRIPT)]
          .map((match) => match[1] ?? "")
          .filter((body) => body.length > 0)
          .map((body) => `sha256-${createHash("sha256").update(body).digest("base64")}`);
        policies.set(relative(root, path), pageContentSecurityPolicy([...new Set(hashes)], production));
      }
    }
  };
  visit(root);
  return policies;
}

export async function sitePlugin(app: FastifyInstance, { root, production }: { root: string; production: boolean }) {
  if (!existsSync(root)) throw new Error(`The built site was not found at ${root}. Run \`npm run build\` first.`);
  const spaFallback = join(root, "__spa-fallback.html");
  const policies = pagePolicies(root, production);

  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    index: false,
    serveDotFiles: false,
    // The web build writes .br/.gz next to every text file (apps/web/scripts/finish-build.mjs).
    preCompressed: true,
    setHeaders(reply, path) {
      reply.header("Cache-Control", path.startsWith(join(root, "assets")) ? ASSET_CACHE : HTML_CACHE);
    },
  });

  /** Whether a (normalised) path is a page: prerendered, a docs path (getting-started) or client-only. */
  const servesPage = (path: string) =>
    isFile(join(root, path === "/" ? "index.html" : `${path.slice(1)}/index.html`)) ||
    path.startsWith("/docs/") ||
    (isClientOnlyPath(path) && isFile(spaFallback));

  const sendHtml = (reply: FastifyReply, file: string, status = 200) =>
    reply
      .code(status)
      .header("Cache-Control", HTML_CACHE)
      .header("Content-Security-Policy", policies.get(file) ?? pageContentSecurityPolicy([], production))
      .type("text/html; charset=utf-8")
      .sendFile(file, root);

  app.route({
    method: ["GET", "HEAD"],
    url: "/*",
    handler: async (request, reply) => {
      const pathname = decodeURIComponent(new URL(request.url, "http://x").pathname);
      const clean = normalize(pathname).replace(/\/+$/, "") || "/";
      if (clean.includes("\0") || clean.split("/").includes("..")) return sendHtml(reply, "404/index.html", 404);

      // A static file (assets, images, video, sitemap, prerendered .data).
      if (clean !== "/" && isFile(join(root, clean))) return reply.sendFile(clean.slice(1), root);

      // A prerendered page.
      const page = clean === "/" ? "index.html" : `${clean.slice(1)}/index.html`;
      if (isFile(join(root, page))) return sendHtml(reply, page);

      // React Router matches routes case-insensitively, the file system does not: were /Pricing answered with the
      // 404 document, the browser would hydrate the pricing route over it. A known page spelled in another case is
      // redirected to its own address instead (docs/decisions/0020).
      const lower = clean.toLowerCase();
      if (lower !== clean && SAFE_PATH.test(lower) && servesPage(lower)) {
        return reply.redirect(`${lower}${new URL(request.url, "http://x").search}`, 301);
      }

      if (clean.startsWith("/docs/")) {
        if (clean.endsWith(".data")) return reply.sendFile(`docs/${DEFAULT_DOC_SLUG}.data`, root);
        return sendHtml(reply, `docs/${DEFAULT_DOC_SLUG}/index.html`);
      }
      if (isClientOnlyPath(clean) && isFile(spaFallback)) return sendHtml(reply, "__spa-fallback.html");
      if (clean.endsWith(".data")) return reply.code(404).type("text/plain").send("Not Found");
      return sendHtml(reply, "404/index.html", 404);
    },
  });
}
