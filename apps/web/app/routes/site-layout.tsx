import { lazy, type ReactNode, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { isRouteErrorResponse, Outlet, useLocation } from "react-router";
import { LazySignupDialog } from "../features/signup/lazy-signup-dialog";
import { NOT_FOUND_SEO, PAGE_ERROR_SEO } from "../features/site/error-seo";
import { SiteFooter } from "../features/site/site-footer";
import { SiteHeader } from "../features/site/site-header";
import { seo } from "../lib/seo";
import { SignupOpenerContext } from "../lib/signup-opener";
import type { Route } from "./+types/site-layout";

/** Top bar, main landmark and footer around every page; owns the early-access modal (loaded on first open). */
function SiteFrame({ children }: { children: ReactNode }) {
  const { pathname, hash } = useLocation();
  const [signupOpen, setSignupOpen] = useState(false);
  const openSignup = useCallback(() => setSignupOpen(true), []);
  const closeSignup = useCallback(() => setSignupOpen(false), []);

  // Spec: the page scrolls to the top on every path change. A link with a #fragment scrolls to its target
  // instead (client-side navigations do not do that by themselves).
  const previousPath = useRef(pathname);
  useEffect(() => {
    const pathChanged = previousPath.current !== pathname;
    previousPath.current = pathname;
    if (hash) {
      document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
    } else if (pathChanged) {
      window.scrollTo(0, 0);
    }
  }, [pathname, hash]);

  return (
    <SignupOpenerContext.Provider value={openSignup}>
      <div className="flex min-h-dvh flex-col">
        <a
          href="#main"
          className="sr-only z-50 rounded-md bg-bg-elevated px-4 py-2 text-sm font-medium focus:not-sr-only focus:fixed focus:left-4 focus:top-3"
        >
          Skip to content
        </a>
        <SiteHeader />
        <main id="main" className="flex-1">
          {children}
        </main>
        <SiteFooter />
      </div>
      <LazySignupDialog open={signupOpen} onClose={closeSignup} />
    </SignupOpenerContext.Provider>
  );
}

export default function SiteLayout() {
  return (
    <SiteFrame>
      <Outlet />
    </SiteFrame>
  );
}

// Loaded only when a page fails on the client, so that no page pays for them up front (the JS budget).
const NotFoundPage = lazy(() =>
  import("../features/site/not-found-page").then((module) => ({ default: module.NotFoundPage })),
);
const PageError = lazy(() => import("../features/site/page-error").then((module) => ({ default: module.PageError })));

const isNotFound = (error: unknown) => isRouteErrorResponse(error) && error.status === 404;

/** Pages keep their own meta; a page that failed gets the 404 page's (or a neutral) title. */
export const meta = ({ error }: Route.MetaArgs) =>
  error ? seo(isNotFound(error) ? NOT_FOUND_SEO : PAGE_ERROR_SEO) : [];

/**
 * A page that fails on the client (a loader answering 404, a render error) is shown inside the site's header
 * and footer, so the visitor keeps the navigation: 404s as the designed 404 page (docs/decisions/0020).
 */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return (
    <SiteFrame>
      <Suspense fallback={null}>{isNotFound(error) ? <NotFoundPage /> : <PageError />}</Suspense>
    </SiteFrame>
  );
}
