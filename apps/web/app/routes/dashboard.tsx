import { seo } from "../lib/seo";

/** Client-only route (never prerendered). Filled in by the sign-in and portal work. */
export const meta = () =>
  seo({
    title: "Customer Dashboard",
    description: "Manage your licenses and account.",
    path: "/dashboard",
    noindex: true,
  });

export default function Dashboard() {
  return (
    <div className="mx-auto max-w-xl px-6 py-24 text-center">
      <h1 className="text-3xl font-semibold tracking-tight">Customer Dashboard</h1>
      <p className="mt-4 text-fg-muted">Manage your licenses and account.</p>
    </div>
  );
}
