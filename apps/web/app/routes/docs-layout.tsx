import { resolveDocSlug } from "@flotilla/contracts";
import { useCallback, useState } from "react";
import { Outlet, useLocation } from "react-router";
import { DocsSearchButton, DocsSearchDialog, useDocsSearchShortcut } from "../features/docs/docs-search";
import { DocsSidebar } from "../features/docs/docs-sidebar";

export default function DocsLayout() {
  const { pathname } = useLocation();
  const currentSlug = resolveDocSlug(pathname.replace(/^\/docs\/?/, ""));
  const [searchOpen, setSearchOpen] = useState(false);
  const openSearch = useCallback(() => setSearchOpen(true), []);
  const closeSearch = useCallback(() => setSearchOpen(false), []);
  useDocsSearchShortcut(openSearch);

  return (
    <div className="mx-auto flex max-w-7xl gap-10 px-4 sm:px-6 lg:px-8">
      <aside className="sticky top-16 hidden h-[calc(100dvh-4rem)] w-60 shrink-0 overflow-y-auto py-10 lg:block">
        <div className="mb-6">
          <DocsSearchButton onOpen={openSearch} />
        </div>
        <DocsSidebar currentSlug={currentSlug} />
      </aside>
      <div className="min-w-0 flex-1">
        <div className="mt-6 space-y-3 lg:hidden">
          <DocsSearchButton onOpen={openSearch} />
          <details className="rounded-lg border border-border">
            <summary className="cursor-pointer px-4 py-2.5 text-sm font-medium">Browse the docs</summary>
            <div className="px-2 pb-2">
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
