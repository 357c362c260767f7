import { ApiReference } from "../features/api-reference/api-reference";
import { seo } from "../lib/seo";

export const meta = () =>
  seo({
    title: "API Reference",
    description:
      "The Flotilla API: every endpoint with its request and response shapes, generated from the live OpenAPI 3 document.",
    path: "/api-reference",
  });

export default function ApiReferencePage() {
  return (
    <div className="mx-auto max-w-4xl px-4 py-20 sm:px-6">
      <p className="text-sm font-semibold uppercase tracking-wider text-accent">Developers</p>
      <h1 className="mt-3 text-4xl font-semibold tracking-tight">API Reference</h1>
      <div className="mt-5 space-y-3 text-lg leading-8 text-fg-muted">
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
      </div>
      <ApiReference />
    </div>
  );
}
