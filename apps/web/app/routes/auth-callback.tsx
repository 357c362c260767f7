import { seo } from "../lib/seo";

/** Client-only route (never prerendered). Filled in by the sign-in and portal work. */
export const meta = () =>
  seo({ title: "Authenticating...", description: "Completing your sign-in.", path: "/auth/callback", noindex: true });

export default function AuthCallback() {
  return (
    <div className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-3xl font-semibold tracking-tight">Authenticating...</h1>
      <p className="mt-4 text-fg-muted">Completing your sign-in.</p>
    </div>
  );
}
