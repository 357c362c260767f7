import { BRAND } from "@flotilla/contracts";
import { type ReactNode, useContext, useEffect } from "react";
import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, UNSAFE_FrameworkContext, useMatches } from "react-router";
import type { Route } from "./+types/root";
import appStylesheet from "./app.css?url";
import interFont from "./fonts/inter-variable-subset.woff2?url";
import { AuthProvider } from "./lib/auth";
import { isStaticPage } from "./lib/route-handle";
import { SPECULATION_RULES } from "./lib/speculation-rules";
import { THEME_BOOT_SCRIPT } from "./lib/theme";

export const links: Route.LinksFunction = () => [
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  { rel: "alternate", type: "application/rss+xml", title: `${BRAND.name} blog`, href: "/blog/rss.xml" },
];

/** True while React renders a page at build time (prerendering); never in a browser. */
const PRERENDERING = typeof document === "undefined";

export function Layout({ children }: { children: ReactNode }) {
  // A content page is built without the React Router runtime (docs/decisions/0040): the build adds its islands
  // instead (scripts/finish-build.mjs). In the browser this layout only ever runs in the portal's app.
  // The portal's shell (the SPA fallback) is rendered for "/" too, with the same matches: React Router's framework
  // context is what tells it apart, and it must keep its scripts.
  const matches = useMatches();
  const appShell = useContext(UNSAFE_FrameworkContext)?.isSpaMode === true;
  const staticPage = PRERENDERING && !appShell && isStaticPage(matches.map((match) => match.handle));
  // Marks the moment the portal's app became interactive, for tests and for anyone debugging it.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0b1020" />
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
        {/* With `precedence`, React writes the stylesheet ahead of the route modules' modulepreload links:
            over HTTP/1.1 (six connections per host) the render-blocking CSS must not queue behind them. */}
        <link rel="stylesheet" href={appStylesheet} precedence="default" />
        {/* The font the stylesheet declares, asked for at once and after the stylesheet (decision 0064). A preload is
            fetched at High priority, a font found in the stylesheet at the highest, render-blocking one: Lighthouse's
            simulated first paint counted the font in its way although `swap` never waits for it. crossOrigin: fonts
            are fetched in CORS mode, and a preload in another mode would be fetched twice. */}
        <link rel="preload" href={interFont} as="font" type="font/woff2" crossOrigin="" />
        <Meta />
        <Links />
        {staticPage && <script type="speculationrules" dangerouslySetInnerHTML={{ __html: SPECULATION_RULES }} />}
      </head>
      <body>
        {children}
        {!staticPage && <Scripts />}
      </body>
    </html>
  );
}

export default function App() {
  return (
    <AuthProvider>
      <Outlet />
    </AuthProvider>
  );
}

export function HydrateFallback() {
  return (
    <div className="grid min-h-dvh place-items-center text-sm text-fg-muted" role="status">
      Loading…
    </div>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const title = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : "Something went wrong";
  return (
    <main className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-3xl font-semibold">{title}</h1>
      <p className="mt-4 text-fg-muted">
        Please reload the page. If it keeps happening, tell us at {BRAND.supportEmail}.
      </p>
      <a className="mt-8 inline-block text-accent underline" href="/">
        Back to the home page
      </a>
    </main>
  );
}
