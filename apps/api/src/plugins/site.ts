/**
 * Serves the prerendered site. Static files come straight from the build; page paths map to
 * their prerendered index.html; React Router's .data files back client-side navigations.
 *   - /docs/<anything unknown> shows getting-started (spec), for both HTML and .data requests;
 *   - client-only routes (/login, /dashboard, /auth/callback/*, /newsletter/unsubscribe) get the SPA fallback,
 *     paths beneath them do not (`isClientOnlyPath` in contracts);
 *   - a known page spelled in capitals is redirected to its lower-case address;
 *   - anything else gets the designed 404 page with status 404.
 * The build writes PUBLIC_ORIGIN_PLACEHOLDER wherever it needs an absolute URL; the files holding it are read once
 * at start, given this server's public origin and served from memory (docs/decisions/0024).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, normalize, relative } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import fastifyStatic from "@fastify/static";
import { DEFAULT_DOC_SLUG, isClientOnlyPath, PUBLIC_ORIGIN_PLACEHOLDER } from "@flotilla/contracts";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
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

/** Every file of the build, relative to its root. */
function builtFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? builtFiles(root, join(dir, entry.name)) : [relative(root, join(dir, entry.name))],
  );
}

/** The kinds of file the build may write the placeholder origin into, as @fastify/static types them. */
const TEXT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "application/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  json: "application/json; charset=utf-8",
  xml: "application/xml",
  txt: "text/plain; charset=utf-8",
  data: "application/octet-stream",
  webmanifest: "application/manifest+json",
};
/** Smaller answers are not worth compressing (the threshold of the build's precompression and @fastify/compress). */
const COMPRESS_MIN_BYTES = 1024;
type Encoding = "br" | "gzip";
const compressors: Record<Encoding, (body: Buffer) => Promise<Buffer>> = {
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 9 }),
};

/** A built file with this server's origin in place of the placeholder, served from memory. */
interface OriginFile {
  body: Buffer;
  type: string;
  etag: string;
  /** Compressed once, when first asked for (the build's .br/.gz still hold the placeholder). */
  encoded: Partial<Record<Encoding, Promise<Buffer>>>;
}

/** Reads every built text file once; those naming the placeholder get the origin in its place. */
function withOrigin(root: string, files: string[], origin: string): Map<string, OriginFile> {
  const rewritten = new Map<string, OriginFile>();
  for (const file of files) {
    const type = TEXT_TYPES[file.slice(file.lastIndexOf(".") + 1)];
    if (!type) continue;
    const built = readFileSync(join(root, file));
    if (!built.includes(PUBLIC_ORIGIN_PLACEHOLDER)) continue;
    const body = Buffer.from(built.toString("utf8").replaceAll(PUBLIC_ORIGIN_PLACEHOLDER, origin));
    const etag = `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
    rewritten.set(file, { body, type, etag, encoded: {} });
  }
  return rewritten;
}

/** The best encoding of ours the client accepts (Brotli, then gzip), or none. */
function acceptedEncoding(header: string | undefined): Encoding | null {
  const weights = new Map<string, number>();
  for (const part of (header ?? "").toLowerCase().split(",")) {
    const [name = "", ...parameters] = part.split(";").map((piece) => piece.trim());
    const q = parameters.find((parameter) => parameter.startsWith("q="));
    weights.set(name, q ? Number(q.slice(2)) : 1);
  }
  for (const encoding of ["br", "gzip"] as const) {
    const weight = weights.get(encoding) ?? weights.get("*") ?? 0;
    if (weight > 0) return encoding;
  }
  return null;
}

/** Whether an If-None-Match header names this ETag (weak comparison, RFC 9110 §13.1.2). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag));
}

/** Hashes every inline script of every page as served, once at start: each gets a CSP allowing exactly its own. */
function pagePolicies(
  root: string,
  files: string[],
  rewritten: Map<string, OriginFile>,
  insistOnHttps: boolean,
): Map<string, string> {
  const policies = new Map<string, string>();
  for (const file of files) {
    if (!file.endsWith(".html")) continue;
    const html = rewritten.get(file)?.body.toString("utf8") ?? readFileSync(join(root, file), "utf8");
    const hashes = [...html.matchAll(INLINE_SCRIPT)]
      .map((match) => match[1] ?? "")
      .filter((body) => body.length > 0)
      .map((body) => `sha256-${createHash("sha256").update(body).digest("base64")}`);
    policies.set(file, pageContentSecurityPolicy([...new Set(hashes)], insistOnHttps));
  }
  return policies;
}

export async function sitePlugin(
  app: FastifyInstance,
  { root, insistOnHttps, origin }: { root: string; insistOnHttps: boolean; origin: string },
) {
  if (!existsSync(root)) throw new Error(`The built site was not found at ${root}. Run \`npm run build\` first.`);
  const spaFallback = join(root, "__spa-fallback.html");
  const files = builtFiles(root);
  const rewritten = withOrigin(root, files, origin);
  /** The build's compressed copies of rewritten files still name the placeholder: never served. */
  const withheld = new Set([...rewritten.keys()].flatMap((file) => [`${file}.br`, `${file}.gz`]));
  const policies = pagePolicies(root, files, rewritten, insistOnHttps);

  await app.register(fastifyStatic, {
    root,
    // No route per file: every request goes through the handler below, which serves rewritten files from memory.
    serve: false,
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

  /** A file of the build (relative to root): from memory when rewritten, else from disk with its .br/.gz. */
  const sendStatic = async (request: FastifyRequest, reply: FastifyReply, file: string) => {
    const entry = rewritten.get(file);
    if (!entry) return reply.sendFile(file, root);
    reply
      .header("Cache-Control", file.startsWith("assets/") ? ASSET_CACHE : HTML_CACHE)
      .header("ETag", entry.etag)
      .header("Vary", "accept-encoding");
    if (!reply.hasHeader("content-type")) reply.type(entry.type);
    if (reply.statusCode === 200 && matchesEtag(request.headers["if-none-match"], entry.etag)) {
      return reply.code(304).send();
    }
    const encoding =
      entry.body.length >= COMPRESS_MIN_BYTES ? acceptedEncoding(request.headers["accept-encoding"]) : null;
    if (!encoding) return reply.send(entry.body);
    entry.encoded[encoding] ??= compressors[encoding](entry.body);
    return reply.header("Content-Encoding", encoding).send(await entry.encoded[encoding]);
  };

  const sendHtml = (request: FastifyRequest, reply: FastifyReply, file: string, status = 200) =>
    sendStatic(
      request,
      reply
        .code(status)
        .header("Cache-Control", HTML_CACHE)
        .header("Content-Security-Policy", policies.get(file) ?? pageContentSecurityPolicy([], insistOnHttps))
        .type("text/html; charset=utf-8"),
      file,
    );

  app.route({
    method: ["GET", "HEAD"],
    url: "/*",
    // The static site is not an API operation: it stays out of the OpenAPI document.
    schema: { hide: true },
    handler: async (request, reply) => {
      const pathname = decodeURIComponent(new URL(request.url, "http://x").pathname);
      const clean = normalize(pathname).replace(/\/+$/, "") || "/";
      if (clean.includes("\0") || clean.split("/").includes("..")) {
        return sendHtml(request, reply, "404/index.html", 404);
      }

      // A static file (assets, images, video, sitemap, prerendered .data).
      const file = clean.slice(1);
      if (clean !== "/" && !withheld.has(file) && isFile(join(root, file))) return sendStatic(request, reply, file);

      // A prerendered page.
      const page = clean === "/" ? "index.html" : `${clean.slice(1)}/index.html`;
      if (isFile(join(root, page))) return sendHtml(request, reply, page);

      // React Router matches routes case-insensitively, the file system does not: were /Pricing answered with the
      // 404 document, the browser would hydrate the pricing route over it. A known page spelled in another case is
      // redirected to its own address instead (docs/decisions/0020).
      const lower = clean.toLowerCase();
      if (lower !== clean && SAFE_PATH.test(lower) && servesPage(lower)) {
        return reply.redirect(`${lower}${new URL(request.url, "http://x").search}`, 301);
      }

      if (clean.startsWith("/docs/")) {
        if (clean.endsWith(".data")) return sendStatic(request, reply, `docs/${DEFAULT_DOC_SLUG}.data`);
        return sendHtml(request, reply, `docs/${DEFAULT_DOC_SLUG}/index.html`);
      }
      if (isClientOnlyPath(clean) && isFile(spaFallback)) return sendHtml(request, reply, "__spa-fallback.html");
      if (clean.endsWith(".data")) return reply.code(404).type("text/plain").send("Not Found");
      return sendHtml(request, reply, "404/index.html", 404);
    },
  });
}
