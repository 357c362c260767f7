import { useCallback, useEffect, useRef, useState } from "react";
import { Outlet, useLocation } from "react-router";
import { LazySignupDialog } from "../features/signup/lazy-signup-dialog";
import { SiteFooter } from "../features/site/site-footer";
import { SiteHeader } from "../features/site/site-header";
import { SignupOpenerContext } from "../lib/signup-opener";

/** Top bar, main landmark and footer around every page; owns the early-access modal (loaded on first open). */
export default function SiteLayout() {
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
          <Outlet />
        </main>
        <SiteFooter />
      </div>
      <LazySignupDialog open={signupOpen} onClose={closeSignup} />
    </SignupOpenerContext.Provider>
  );
}
