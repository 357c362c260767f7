/** Spec section 2, "Global navigation". */
export const NAV_ITEMS = [
  { label: "Home", href: "/" },
  { label: "Docs", href: "/docs" },
  { label: "Pricing", href: "/pricing" },
  { label: "Blog", href: "/blog" },
  { label: "About", href: "/about" },
] as const;

/**
 * An item is highlighted when the current path equals or starts with its href.
 * "/" would start every path, so Home is active on "/" only; a prefix must end at a segment
 * boundary so that /docs does not light up for /docsearch.
 */
export function isNavItemActive(pathname: string, href: string): boolean {
  if (href === "/") return pathname === "/";
  return pathname === href || pathname.startsWith(`${href}/`);
}

/** Where a person lands after signing out everywhere; /login says what happened. */
export const SIGNED_OUT_EVERYWHERE_PATH = "/login?signed_out=everywhere";

/** Public, prerendered routes other than docs pages and blog posts. */
export const STATIC_PUBLIC_PATHS = [
  "/",
  "/pricing",
  "/about",
  "/blog",
  "/terms",
  "/privacy",
  "/api-reference",
  "/publishers-guide",
] as const;
/** Client-only routes: never prerendered, never in the sitemap. */
export const CLIENT_ONLY_PATHS = [
  "/login",
  "/dashboard",
  "/admin",
  "/auth/callback",
  "/newsletter/unsubscribe",
  "/newsletter/confirm",
] as const;

/** Of those, the one whose whole subtree is the same page (spec: "/auth/callback and anything beneath it"). */
export const CLIENT_ONLY_SUBTREES = ["/auth/callback"] as const;

/**
 * Whether the server answers `pathname` with the client-only app shell. Anything else that is not a prerendered
 * page is unknown: the server sends the 404 page with status 404 (so /dashboard/typo is a 404, not a blank shell).
 */
export function isClientOnlyPath(pathname: string): boolean {
  return (
    (CLIENT_ONLY_PATHS as readonly string[]).includes(pathname) ||
    CLIENT_ONLY_SUBTREES.some((base) => pathname.startsWith(`${base}/`))
  );
}
