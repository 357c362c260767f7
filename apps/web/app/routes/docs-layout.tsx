import { DOCS_PAGES, resolveDocSlug } from "@flotilla/contracts";
import { ChevronDown } from "lucide-react";
import { useCallback, useState } from "react";
import { Outlet, useLocation } from "react-router";
import { DocsSearchButton, useDocsSearchShortcut } from "../features/docs/docs-search";
import { DocsSearchDialog } from "../features/docs/docs-search-dialog";
import { DocsSidebar } from "../features/docs/docs-sidebar";
import { RELEASE_NOTES_PATH } from "../features/release-notes/release-notes";
import { STATIC_PAGE } from "../lib/route-handle";

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export default function DocsLayout() {
  const { pathname } = useLocation();
  // The release notes page (decision 0063) lives under /docs but is none of the ten pages: nothing is current.
  const currentSlug =
    pathname.replace(/\/+$/, "") === RELEASE_NOTES_PATH
      ? "release-notes"
      : resolveDocSlug(pathname.replace(/^\/docs\/?/, ""));
  const currentTitle = DOCS_PAGES.find((page) => page.slug === currentSlug)?.title;
  const [searchOpen, setSearchOpen] = useState(false);
  const openSearch = useCallback(() => setSearchOpen(true), []);
  const closeSearch = useCallback(() => setSearchOpen(false), []);
  useDocsSearchShortcut(openSearch);

  return (
    <div className="mx-auto flex max-w-7xl gap-10 px-4 sm:px-6 lg:px-8" data-island="search-shortcut">
      <aside className="sticky top-16 hidden h-[calc(100dvh-4rem)] w-60 shrink-0 overflow-y-auto py-10 lg:block">
        <div className="mb-6">
          <DocsSearchButton onOpen={openSearch} />
        </div>
        <DocsSidebar currentSlug={currentSlug} />
      </aside>
      <div className="min-w-0 flex-1">
        <div className="mt-6 space-y-3 lg:hidden">
          <DocsSearchButton onOpen={openSearch} />
          {/* Keyed by path: a navigation from the menu closes it. */}
          <details key={pathname} className="group rounded-lg border border-border bg-bg-elevated">
            <summary className="flex cursor-pointer list-none items-center gap-3 rounded-lg px-4 py-2.5 text-sm [&::-webkit-details-marker]:hidden">
              <span className="font-medium">Docs menu</span>
              <span className="min-w-0 flex-1 truncate text-fg-muted">{currentTitle}</span>
              <ChevronDown
                className="size-4 shrink-0 text-fg-muted transition-transform group-open:rotate-180"
                aria-hidden="true"
              />
            </summary>
            <div className="border-t border-border px-2 pt-4 pb-2 [&>nav>div:last-child]:mb-2">
              <DocsSidebar currentSlug={currentSlug} />
            </div>
          </details>
        </div>
        <Outlet />
      </div>
      <DocsSearchDialog open={searchOpen} onClose={closeSearch} />
    </div>
  );
}
