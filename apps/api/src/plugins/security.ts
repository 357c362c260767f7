/**
 * Security headers. The API answers JSON under a locked-down CSP; HTML pages get a page-specific CSP
 * from the site plugin (script hashes instead of 'unsafe-inline'). HSTS only where pages insist on https
 * (exposure.ts: never on loopback outside production, never for an http origin).
 *
 * Helmet decides the header set, but it is static (no nonces, no per-route options): it is computed once at
 * start and copied onto every reply by one hook. @fastify/helmet rebuilt the helmet middleware — parsing the
 * CSP directives again — on every request, in two hooks.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import helmet, { type HelmetOptions } from "helmet";
import type { Config } from "../config";
import { allows, type ExposureInputs } from "../exposure";

/** Whether pages insist on https (HSTS, upgrade-insecure-requests): not where http is the point, nor over http. */
export function insistsOnHttps(config: ExposureInputs & Pick<Config, "publicOrigin">): boolean {
  return !allows(config, "plainHttpPages") && config.publicOrigin.startsWith("https:");
}

export function helmetOptions(config: ExposureInputs & Pick<Config, "publicOrigin">): HelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
    strictTransportSecurity: insistsOnHttps(config) ? { maxAge: 63_072_000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: "same-origin" },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
  };
}

/** The headers helmet's middleware sets for these options, captured once (lower-case names). */
export function staticSecurityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const capture = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown = null;
  let done = false;
  helmet(options)({} as IncomingMessage, capture as unknown as ServerResponse, (error?: unknown) => {
    failure = error ?? null;
    done = true;
  });
  // Helmet's middleware is synchronous; anything else would mean headers depend on the request.
  if (!done || failure) throw failure ?? new Error("helmet did not set its headers synchronously");
  return headers;
}

/**
 * Scripts, styles, fonts, images and media: files a page loads, never shown as a page themselves (an SVG can be, and
 * is not here). They need only nosniff (a script or style must be what its type says), CORP and HSTS; the CSP,
 * framing, referrer and the rest govern documents, and were 40 % of the bytes a phone fetched for scripts (issue 35).
 */
const SUBRESOURCE = /\.(?:m?js|css|woff2?|png|jpe?g|webp|avif|gif|ico|mp4|webm)$/i;
const SUBRESOURCE_HEADERS = ["x-content-type-options", "cross-origin-resource-policy", "strict-transport-security"];

/** Whether a request (its URL, query ignored) is for a file a page loads rather than a page or an API answer. */
export function isSubresource(url: string): boolean {
  const end = url.indexOf("?");
  return SUBRESOURCE.test(end === -1 ? url : url.slice(0, end));
}

export async function registerSecurity(app: FastifyInstance, config: Config) {
  const headers = staticSecurityHeaders(helmetOptions(config));
  const entries = Object.entries(headers);
  const subresourceEntries = entries.filter(([name]) => SUBRESOURCE_HEADERS.includes(name));
  app.addHook("onRequest", (request, reply, done) => {
    // API routes answer through Fastify: its header map is the cheap path (Node then writes the head in one go).
    // Elsewhere — pages, assets, and the development issuer, whose hijacked replies never write Fastify's map —
    // on the raw response, as helmet did; a page's own CSP set on the reply still replaces the default.
    if (request.url.startsWith("/api/")) reply.headers(headers);
    else
      for (const [name, value] of isSubresource(request.url) ? subresourceEntries : entries) {
        reply.raw.setHeader(name, value);
      }
    done();
  });
  // CORS stays closed by answering none of it: the site and the API share one origin, and the desktop app is not a
  // browser. (@fastify/cors with `origin: false` added nothing but a hook on every request; an OPTIONS preflight is
  // a 404 either way, with no Access-Control-* header: security-headers.test.ts.)
}

/** The CSP for one HTML page: its own inline scripts by hash, nothing inline otherwise. */
export function pageContentSecurityPolicy(scriptHashes: readonly string[], insistOnHttps: boolean): string {
  const directives = [
    "default-src 'self'",
    `script-src 'self' ${scriptHashes.map((hash) => `'${hash}'`).join(" ")}`.trim(),
    // Shiki's highlighted code carries inline colour styles; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    // Google profile pictures in the user menu and dashboard.
    "img-src 'self' data: https://*.googleusercontent.com",
    "media-src 'self'",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ];
  if (insistOnHttps) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}
