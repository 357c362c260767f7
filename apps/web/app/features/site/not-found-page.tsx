import { Compass } from "lucide-react";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";

/**
 * The designed 404 page. Shown by the catch-all route (prerendered as /404, which the server sends with status
 * 404 for every unknown path) and by the site layout's error boundary when a route answers 404 on the client.
 */
export function NotFoundPage() {
  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-6 py-28 text-center">
      <span className="inline-flex size-14 items-center justify-center rounded-2xl bg-brand text-white">
        <Compass className="size-7" aria-hidden="true" />
      </span>
      <p className="mt-8 font-mono text-sm text-fg-muted">404</p>
      <h1 className="mt-2 text-4xl font-semibold tracking-tight">This page drifted off course</h1>
      <p className="mt-4 text-lg text-fg-muted">
        The page you are looking for does not exist or has moved. These will get you back on track:
      </p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <Link to="/" className={buttonClass("primary", "md")}>
          Home
        </Link>
        <Link to="/docs" className={buttonClass("secondary", "md")}>
          Documentation
        </Link>
        <Link to="/blog" className={buttonClass("secondary", "md")}>
          Blog
        </Link>
      </div>
    </div>
  );
}
