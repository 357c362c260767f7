import { BRAND } from "@flotilla/contracts";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";

/** A page that failed for a reason other than "not found", shown inside the site's header and footer. */
export function PageError() {
  return (
    <div className="mx-auto max-w-xl px-6 py-28 text-center">
      <h1 className="text-3xl font-semibold tracking-tight">Something went wrong</h1>
      <p className="mt-4 text-fg-muted">
        This page could not be shown. Please reload it; if it keeps happening, tell us at {BRAND.supportEmail}.
      </p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <button type="button" className={buttonClass("primary", "md")} onClick={() => window.location.reload()}>
          Reload the page
        </button>
        <Link to="/" className={buttonClass("secondary", "md")}>
          Home
        </Link>
      </div>
    </div>
  );
}
