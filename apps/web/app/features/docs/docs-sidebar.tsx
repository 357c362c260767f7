import { DOCS_GROUPS, docHref } from "@flotilla/contracts";
import { Link } from "react-router";

/** The three sidebar groups; the current page is highlighted and marked aria-current. */
export function DocsSidebar({ currentSlug }: { currentSlug: string }) {
  return (
    <nav aria-label="Documentation">
      {DOCS_GROUPS.map((group) => (
        <div key={group.title} className="mb-7">
          <h2 className="mb-2 px-3 text-xs font-semibold uppercase tracking-wider text-fg-muted">{group.title}</h2>
          <ul className="space-y-0.5">
            {group.pages.map((page) => {
              const current = page.slug === currentSlug;
              return (
                <li key={page.slug}>
                  <Link
                    to={docHref(page.slug)}
                    aria-current={current ? "page" : undefined}
                    className={`block rounded-md px-3 py-1.5 text-sm transition-colors ${
                      current
                        ? "bg-sky-500/10 font-medium text-accent"
                        : "text-fg-muted hover:bg-bg-subtle hover:text-fg"
                    }`}
                  >
                    {page.title}
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </nav>
  );
}
