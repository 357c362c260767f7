import { AdminPage } from "../features/admin/admin-page";
import { seo } from "../lib/seo";

/** Client-only route (never prerendered, never in the sitemap); its own chunk, loaded by nobody else. */
export const meta = () =>
  seo({
    title: "Operator console",
    description: "Signups, subscribers, customers, licenses, audit log and webhooks.",
    path: "/admin",
    noindex: true,
  });

export default AdminPage;
