import { BRAND } from "@flotilla/contracts";
import { LayoutDashboard } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";
import { LogoMark } from "../../components/logo";
import { AccountArea } from "../site/account-area";
import { ThemeToggle } from "../site/theme-toggle";

/**
 * The operator console's own app shell (issue 25): a plain top bar (brand, "Console", the customer dashboard, theme,
 * account) and no marketing navigation or footer. A tool, not a page of the site.
 */
export function ConsoleShell({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col bg-bg">
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-bg-elevated px-4 py-2 text-sm font-medium focus:not-sr-only focus:fixed focus:left-4 focus:top-3"
      >
        Skip to content
      </a>
      <header className="sticky top-0 z-40 border-b border-border bg-bg-elevated">
        <div className="mx-auto flex h-14 max-w-7xl items-center gap-3 px-4 sm:px-6 lg:px-8">
          <Link
            to="/"
            className="inline-flex items-center gap-2 rounded-md font-semibold tracking-tight text-fg"
            aria-label={`${BRAND.name} home`}
          >
            <LogoMark />
            {/* On a phone the mark alone: the bar keeps room for "Console" and the account menu. */}
            <span className="hidden text-[1.05rem] sm:inline">{BRAND.name}</span>
          </Link>
          <span className="rounded-md border border-border px-2 py-0.5 text-xs font-semibold uppercase tracking-wide text-fg-muted">
            Console
          </span>
          <div className="ml-auto flex items-center gap-2">
            {/* The account menu has Dashboard too; the bar shows it where there is room. */}
            <span className="hidden sm:block">
              <Link to="/dashboard" className={buttonClass("ghost", "sm")}>
                <LayoutDashboard className="size-4" aria-hidden="true" />
                Dashboard
              </Link>
            </span>
            <ThemeToggle />
            <AccountArea />
          </div>
        </div>
      </header>
      <main id="main" className="flex-1">
        {children}
      </main>
    </div>
  );
}
