import { DOCS_PAGES, docHref } from "@flotilla/contracts";
import { ArrowLeft, ArrowRight } from "lucide-react";
import { Link } from "react-router";

/** Previous/next in sidebar reading order. */
export function DocsPager({ slug }: { slug: string }) {
  const index = DOCS_PAGES.findIndex((page) => page.slug === slug);
  const previous = index > 0 ? DOCS_PAGES[index - 1] : undefined;
  const next = index >= 0 && index < DOCS_PAGES.length - 1 ? DOCS_PAGES[index + 1] : undefined;
  return (
    <nav aria-label="Previous and next pages" className="mt-16 grid gap-4 border-t border-border pt-8 sm:grid-cols-2">
      {previous ? (
        <Link
          to={docHref(previous.slug)}
          rel="prev"
          className="group rounded-xl border border-border p-4 hover:border-sky-500/50"
        >
          <span className="flex items-center gap-1 text-xs text-fg-muted">
            <ArrowLeft className="size-3.5" aria-hidden="true" /> Previous
          </span>
          <span className="mt-1 block font-medium group-hover:text-accent">{previous.title}</span>
        </Link>
      ) : (
        <span />
      )}
      {next && (
        <Link
          to={docHref(next.slug)}
          rel="next"
          className="group rounded-xl border border-border p-4 text-right hover:border-sky-500/50"
        >
          <span className="flex items-center justify-end gap-1 text-xs text-fg-muted">
            Next <ArrowRight className="size-3.5" aria-hidden="true" />
          </span>
          <span className="mt-1 block font-medium group-hover:text-accent">{next.title}</span>
        </Link>
      )}
    </nav>
  );
}
