/**
 * Security headers. The API answers JSON under a locked-down CSP; HTML pages get a page-specific CSP
 * from the site plugin (script hashes instead of 'unsafe-inline'). HSTS only in production, over HTTPS.
 */
import cors from "@fastify/cors";
import helmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config";

export async function registerSecurity(app: FastifyInstance, config: Config) {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
    strictTransportSecurity: config.env === "production" ? { maxAge: 63_072_000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    crossOriginResourcePolicy: { policy: "same-origin" },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
  });
  // CORS is closed: the site and the API share one origin; the desktop app is not a browser.
  await app.register(cors, { origin: false });
}

/** The CSP for one HTML page: its own inline scripts by hash, nothing inline otherwise. */
export function pageContentSecurityPolicy(scriptHashes: readonly string[], production: boolean): string {
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
  if (production) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}
