import { DashboardPage } from "../features/dashboard/dashboard-page";
import { seo } from "../lib/seo";

/** Client-only route (never prerendered). */
export const meta = () =>
  seo({
    title: "Customer Dashboard",
    description: "Manage your licenses and account.",
    path: "/dashboard",
    noindex: true,
  });

export default DashboardPage;
