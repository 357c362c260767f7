import { Fragment } from "react";
import {
  type Answer,
  exampleOf,
  type Operation,
  type OperationGroup,
  operationAnchor,
  statusLabel,
  statusMeaning,
} from "./openapi";
import { SchemaTable } from "./schema-table";

const METHOD_STYLE: Record<string, string> = {
  GET: "bg-emerald-500/10 text-emerald-700 dark:text-emerald-300",
  POST: "bg-sky-500/10 text-sky-700 dark:text-sky-300",
  PATCH: "bg-amber-500/10 text-amber-800 dark:text-amber-300",
  PUT: "bg-amber-500/10 text-amber-800 dark:text-amber-300",
  DELETE: "bg-rose-500/10 text-rose-700 dark:text-rose-300",
};

const tagAnchor = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
/** Rendered descriptions (paragraphs, code spans, links), at the size of the text around them. */
const MARKDOWN_CLASS =
  "[&_a]:text-accent [&_a]:underline [&_code]:rounded [&_code]:bg-bg-subtle [&_code]:px-1 [&_code]:py-px [&_code]:font-mono [&_code]:text-[0.85em] [&_code]:text-fg [&_p+p]:mt-2";
const headingClass = "text-xs font-semibold uppercase tracking-wider text-fg-muted";

function Method({ method }: { method: string }) {
  return (
    <span
      className={`inline-block w-14 shrink-0 rounded px-1.5 py-0.5 text-center font-mono text-[0.7rem] font-semibold ${METHOD_STYLE[method] ?? "bg-bg-subtle"}`}
    >
      {method}
    </span>
  );
}

/** A JSON example, generated from the operation's schema (exampleOf). */
function Example({ label, value }: { label: string; value: unknown }) {
  return (
    <figure className="mt-2">
      <figcaption className="sr-only">{label}</figcaption>
      <pre className="overflow-x-auto rounded-lg border border-border bg-bg-subtle p-3 font-mono text-xs leading-5">
        <code>{JSON.stringify(value, null, 2)}</code>
      </pre>
    </figure>
  );
}

/**
 * A path that wraps before a slash, never inside a segment (`/license/configurat|ions` in a narrow column):
 * <wbr> before each "/", and break-words only for a segment wider than the column.
 */
function WrappingPath({ path, className }: { path: string; className: string }) {
  const segments = path.split(/(?=\/)/);
  return (
    <code className={`min-w-0 break-words font-mono ${className}`}>
      {segments.map((segment, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {segment}
        </Fragment>
      ))}
    </code>
  );
}

/** One declared answer: its status (or "Other failures") and what it means for this operation. */
function AnswerRow({ answer }: { answer: Answer }) {
  return (
    <div className="contents">
      <dt className="font-mono text-xs font-semibold leading-5 whitespace-nowrap">{statusLabel(answer.status)}</dt>
      {answer.meaningHtml ? (
        <dd
          className={`text-xs leading-5 text-fg-muted wrap-anywhere max-sm:mb-1.5 ${MARKDOWN_CLASS} [&_ul]:list-disc [&_ul]:pl-4`}
          // Rendered at build time from the service's own OpenAPI document (openapi.server.ts).
          dangerouslySetInnerHTML={{ __html: answer.meaningHtml }}
        />
      ) : (
        <dd className="text-xs leading-5 text-fg-muted wrap-anywhere max-sm:mb-1.5">{statusMeaning(answer)}</dd>
      )}
    </div>
  );
}

function OperationCard({ op }: { op: Operation }) {
  const success = op.responses.find((response) => response.status.startsWith("2"));
  return (
    <article
      id={operationAnchor(op)}
      aria-labelledby={`${operationAnchor(op)}-title`}
      className="scroll-mt-24 rounded-xl border border-border bg-bg-elevated p-5"
    >
      <h3 id={`${operationAnchor(op)}-title`} className="flex flex-wrap items-center gap-3">
        <Method method={op.method} />
        <WrappingPath path={op.path} className="text-sm" />
      </h3>
      <p className="mt-2 font-medium">{op.summary}</p>
      {op.descriptionHtml && (
        <div
          className={`mt-1 text-sm leading-6 text-fg-muted ${MARKDOWN_CLASS}`}
          // Rendered at build time from the service's own OpenAPI document (openapi.server.ts).
          dangerouslySetInnerHTML={{ __html: op.descriptionHtml }}
        />
      )}
      {op.parameters.length > 0 && (
        <div className="mt-4">
          <h4 className={headingClass}>Parameters</h4>
          <ul className="mt-1 text-sm">
            {op.parameters.map((p) => (
              <li key={`${p.in}-${p.name}`} className="font-mono text-xs">
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
          <h4 className={headingClass}>JSON body</h4>
          <SchemaTable schema={op.body} />
          <Example label={`Example request body of ${op.method} ${op.path}`} value={exampleOf(op.body)} />
        </div>
      )}
      <div className="mt-4">
        <h4 className={headingClass}>Responses</h4>
        {/* On a phone each status sits above its meaning ("Other failures" would take a third of the width); from sm
            up, side by side. minmax(0,1fr) and wrap-anywhere: a long code (RATE_LIMIT_LICENSE_KEY_PER_MINUTE) wraps
            instead of pushing the meanings past the card's edge. */}
        <dl className="mt-1 grid grid-cols-1 gap-x-3 gap-y-1 text-sm sm:grid-cols-[auto_minmax(0,1fr)]">
          {op.responses.map((answer) => (
            <AnswerRow key={answer.status} answer={answer} />
          ))}
        </dl>
        {success?.schema && (
          <Example
            label={`Example ${success.status} answer of ${op.method} ${op.path}`}
            value={exampleOf(success.schema)}
          />
        )}
      </div>
    </article>
  );
}

/**
 * Renders the service's OpenAPI document, exported at build time (openapi.server.ts): the prerendered page lists
 * every route with its answers and generated examples, and cannot drift from the routes because both come from the
 * same zod schemas. A sticky index of every operation sits beside it on wide screens.
 */
export function ApiReference({ groups }: { groups: OperationGroup[] }) {
  return (
    <div className="mt-12 lg:grid lg:grid-cols-[15rem_minmax(0,1fr)] lg:gap-10">
      <nav
        aria-label="Operations"
        className="mb-10 rounded-xl border border-border bg-bg-subtle p-4 text-sm lg:sticky lg:top-20 lg:mb-0 lg:max-h-[calc(100dvh-6rem)] lg:self-start lg:overflow-y-auto"
      >
        <ul className="space-y-4">
          {groups.map(({ tag, operations }) => (
            <li key={tag}>
              <a href={`#${tagAnchor(tag)}`} className="font-semibold hover:text-accent">
                {tag}
              </a>
              <ul className="mt-1.5 space-y-1">
                {operations.map((op) => (
                  <li key={operationAnchor(op)}>
                    <a
                      href={`#${operationAnchor(op)}`}
                      className="flex items-start gap-2 rounded px-1 py-0.5 text-fg-muted hover:bg-bg-elevated hover:text-fg"
                    >
                      <Method method={op.method} />
                      <WrappingPath path={op.path.replace(/^\/api/, "")} className="text-[0.7rem] leading-5" />
                    </a>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </nav>
      <div className="min-w-0 space-y-14">
        {groups.map(({ tag, descriptionHtml, operations }) => (
          <section key={tag} aria-labelledby={tagAnchor(tag)} className="scroll-mt-24">
            <h2 id={tagAnchor(tag)} className="scroll-mt-24 text-2xl font-semibold tracking-tight">
              {tag}
            </h2>
            {descriptionHtml && (
              <div
                className={`mt-2 text-fg-muted ${MARKDOWN_CLASS}`}
                dangerouslySetInnerHTML={{ __html: descriptionHtml }}
              />
            )}
            <div className="mt-6 space-y-6">
              {operations.map((op) => (
                <OperationCard key={operationAnchor(op)} op={op} />
              ))}
            </div>
          </section>
        ))}
      </div>
    </div>
  );
}
