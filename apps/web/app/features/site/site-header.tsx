import { DOCS_GROUPS, docHref, isNavItemActive, NAV_ITEMS } from "@flotilla/contracts";
import { Menu, X } from "lucide-react";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { Link, useLocation } from "react-router";
import { Logo } from "../../components/logo";
import { AccountArea } from "./account-area";
import { DocsMenu, navItemClass } from "./docs-menu";
import { ThemeToggle } from "./theme-toggle";
import { useDismiss } from "./use-dismiss";

export function SiteHeader() {
  const { pathname } = useLocation();
  const [mobileOpen, setMobileOpen] = useState(false);
  const mobileId = useId();
  const header = useRef<HTMLElement>(null);
  const mobileToggle = useRef<HTMLButtonElement>(null);
  const closeMobile = useCallback(() => setMobileOpen(false), []);
  // Escape (focus back on the toggle) and a press outside the header close it, as they close the Docs menu.
  useDismiss(mobileOpen, closeMobile, header, mobileToggle);
  // Every navigation closes the mobile menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: pathname is the trigger
  useEffect(() => setMobileOpen(false), [pathname]);

  return (
    <header
      ref={header}
      data-island="header"
      className="sticky top-0 z-40 border-b border-border/70 bg-bg/80 backdrop-blur-md supports-[backdrop-filter]:bg-bg/70"
    >
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4 sm:px-6 lg:px-8">
        <Link to="/" className="mr-2 rounded-md" aria-label="Flotilla home">
          <Logo />
        </Link>
        <nav aria-label="Main" className="hidden flex-1 items-center gap-1 md:flex">
          {NAV_ITEMS.map((item) => {
            const active = isNavItemActive(pathname, item.href);
            return item.href === "/docs" ? (
              <DocsMenu key={item.href} active={active} />
            ) : (
              <Link
                key={item.href}
                to={item.href}
                className={navItemClass(active)}
                aria-current={active ? "page" : undefined}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
        <div className="ml-auto flex items-center gap-2">
          <ThemeToggle />
          <div className="hidden md:block">
            <AccountArea />
          </div>
          <button
            ref={mobileToggle}
            type="button"
            className="group inline-flex size-9 items-center justify-center rounded-lg text-fg hover:bg-bg-subtle md:hidden"
            data-mobile-menu-button
            aria-expanded={mobileOpen}
            aria-controls={mobileId}
            aria-label={mobileOpen ? "Close menu" : "Open menu"}
            onClick={() => setMobileOpen((open) => !open)}
          >
            {/* Both icons, switched by aria-expanded: the same markup works with React and with the island. */}
            <Menu className="size-5 group-aria-expanded:hidden" aria-hidden="true" />
            <X className="hidden size-5 group-aria-expanded:block" aria-hidden="true" />
          </button>
        </div>
      </div>
      <nav
        id={mobileId}
        aria-label="Mobile"
        hidden={!mobileOpen}
        className="max-h-[calc(100dvh-4rem)] overflow-y-auto border-t border-border bg-bg px-4 pb-6 pt-2 md:hidden"
      >
        <ul className="space-y-1">
          {NAV_ITEMS.map((item) => {
            const active = isNavItemActive(pathname, item.href);
            return (
              <li key={item.href}>
                <Link
                  to={item.href}
                  className={`block rounded-md px-3 py-2.5 text-base font-medium ${active ? "bg-bg-subtle text-fg" : "text-fg-muted"}`}
                  aria-current={active ? "page" : undefined}
                >
                  {item.label}
                </Link>
                {item.href === "/docs" && (
                  <ul className="mb-2 ml-3 border-l border-border pl-3">
                    {DOCS_GROUPS.flatMap((group) => group.pages).map((page) => (
                      <li key={page.slug}>
                        <Link to={docHref(page.slug)} className="block px-2 py-1.5 text-sm text-fg-muted hover:text-fg">
                          {page.title}
                        </Link>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            );
          })}
        </ul>
        <div className="mt-4">
          <AccountArea variant="panel" onNavigate={() => setMobileOpen(false)} />
        </div>
      </nav>
    </header>
  );
}
