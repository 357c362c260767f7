import { AdminPage } from "../features/admin/admin-page";
import { ConsoleShell } from "../features/admin/console-shell";
import { seo } from "../lib/seo";

/**
 * Client-only route (never prerendered, never in the sitemap); its own chunk, loaded by nobody else. It sits outside
 * the site's layout: the console has its own app shell, not the marketing header and footer.
 */
export const meta = () =>
  seo({
    title: "Operator console",
    description: "Signups, subscribers, customers, licenses, audit log and webhooks.",
    path: "/admin",
    noindex: true,
  });

export default function AdminRoute() {
  return (
    <ConsoleShell>
      <AdminPage />
    </ConsoleShell>
  );
}
