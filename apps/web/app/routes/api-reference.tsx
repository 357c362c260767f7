import { BRAND } from "@flotilla/contracts/brand";
import { Link } from "react-router";
import { ApiReference } from "../features/api-reference/api-reference";
import { readApiReference } from "../features/api-reference/openapi.server";
import { STATIC_PAGE } from "../lib/route-handle";
import { seo } from "../lib/seo";
import type { Route } from "./+types/api-reference";

/** Build time only: the page is prerendered from the service's own OpenAPI document. */

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export const loader = async () => ({ groups: await readApiReference() });

export const meta = () =>
  seo({
    title: "API Reference",
    description: `The ${BRAND.name} API: every endpoint with its request and response shapes, generated from the service's OpenAPI 3 document.`,
    path: "/api-reference",
  });

export default function ApiReferencePage({ loaderData }: Route.ComponentProps) {
  return (
    <div className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
      <p className="text-sm font-semibold uppercase tracking-wider text-accent">Developers</p>
      <h1 className="mt-3 text-4xl font-semibold tracking-tight">API Reference</h1>
      <div className="mt-5 max-w-3xl space-y-3 text-lg leading-8 text-fg-muted">
        <p>
          Every endpoint speaks JSON. Successful responses carry{" "}
          <code className="font-mono text-base">success: true</code>; errors carry{" "}
          <code className="font-mono text-base">{"{ success: false, error, code }"}</code> with a human message and a
          stable code, and never a stack trace.
        </p>
        <p>
          The machine-readable description is at{" "}
          <a href="/api/openapi.json" className="text-accent underline underline-offset-2">
            /api/openapi.json
          </a>{" "}
          (OpenAPI 3.1). Requests are rate-limited per client address; a 429 carries Retry-After.
        </p>
        <p>
          Building a desktop app on the licensing endpoints? The{" "}
          <Link to="/publishers-guide" className="text-accent underline underline-offset-2">
            publisher&apos;s guide
          </Link>{" "}
          explains activation, heartbeats, seats, offline use, key rotation and signed answers, with SDK and CLI
          examples.
        </p>
      </div>
      <ApiReference groups={loaderData.groups} />
    </div>
  );
}
