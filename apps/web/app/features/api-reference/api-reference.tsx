import type { OperationGroup } from "./openapi";
import { SchemaTable } from "./schema-table";

const METHOD_STYLE: Record<string, string> = {
  GET: "bg-emerald-500/10 text-emerald-700 dark:text-emerald-300",
  POST: "bg-sky-500/10 text-sky-700 dark:text-sky-300",
  DELETE: "bg-rose-500/10 text-rose-700 dark:text-rose-300",
};

/**
 * Renders the service's OpenAPI document, exported at build time (openapi.server.ts): the prerendered page lists
 * every route, and cannot drift from the routes because both come from the same zod schemas.
 */
export function ApiReference({ groups }: { groups: OperationGroup[] }) {
  const anchor = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <div className="mt-12 space-y-14">
      <nav aria-label="Sections" className="rounded-xl border border-border bg-bg-subtle p-5">
        <p className="text-sm font-semibold">On this page</p>
        <ul className="mt-2 space-y-1 text-sm">
          {groups.map(({ tag, description }) => (
            <li key={tag}>
              <a href={`#${anchor(tag)}`} className="font-medium text-accent hover:underline">
                {tag}
              </a>
              {description && <span className="text-fg-muted"> — {description}</span>}
            </li>
          ))}
        </ul>
      </nav>
      {groups.map(({ tag, description, operations }) => (
        <section key={tag} aria-labelledby={anchor(tag)}>
          <h2 id={anchor(tag)} className="text-2xl font-semibold tracking-tight">
            {tag}
          </h2>
          {description && <p className="mt-2 text-fg-muted">{description}</p>}
          <ul className="mt-6 space-y-6">
            {operations.map((op) => (
              <li key={`${op.method} ${op.path}`} className="rounded-xl border border-border bg-bg-elevated p-5">
                <h3 className="flex flex-wrap items-center gap-3">
                  <span
                    className={`rounded px-2 py-0.5 font-mono text-xs font-semibold ${METHOD_STYLE[op.method] ?? "bg-bg-subtle"}`}
                  >
                    {op.method}
                  </span>
                  <code className="min-w-0 font-mono text-sm [overflow-wrap:anywhere]">{op.path}</code>
                </h3>
                <p className="mt-2 font-medium">{op.summary}</p>
                {op.description && <p className="mt-1 text-sm text-fg-muted">{op.description}</p>}
                {op.parameters.length > 0 && (
                  <div className="mt-4">
                    <h4 className="text-xs font-semibold uppercase tracking-wider text-fg-muted">Parameters</h4>
                    <ul className="mt-1 text-sm">
                      {op.parameters.map((p) => (
                        <li key={p.name} className="font-mono text-xs">
                          {p.name}{" "}
                          <span className="text-fg-muted">
                            ({p.in}
                            {p.required ? ", required" : ""})
                          </span>
                        </li>
                      ))}
                    </ul>
                  </div>
                )}
                {op.body && (
                  <div className="mt-4">
                    <h4 className="text-xs font-semibold uppercase tracking-wider text-fg-muted">JSON body</h4>
                    <SchemaTable schema={op.body} />
                  </div>
                )}
                <div className="mt-4">
                  <h4 className="text-xs font-semibold uppercase tracking-wider text-fg-muted">Responses</h4>
                  <p className="mt-1 flex flex-wrap gap-2 font-mono text-xs">
                    {op.responses.map((r) => (
                      <span key={r.status} className="rounded border border-border px-1.5 py-0.5">
                        {r.status}
                      </span>
                    ))}
                  </p>
                </div>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
