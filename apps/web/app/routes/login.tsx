import { seo } from "../lib/seo";

/** Client-only route (never prerendered). Filled in by the sign-in and portal work. */
export const meta = () =>
  seo({
    title: "Sign in",
    description: "Sign in with Google to manage your licenses, devices and usage.",
    path: "/login",
    noindex: true,
  });

export default function Login() {
  return (
    <div className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-3xl font-semibold tracking-tight">Sign in</h1>
      <p className="mt-4 text-fg-muted">Sign in with Google to manage your licenses, devices and usage.</p>
    </div>
  );
}
