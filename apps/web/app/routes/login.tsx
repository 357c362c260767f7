import { LoginPage } from "../features/auth/login-page";
import { seo } from "../lib/seo";

/** Client-only route (never prerendered). */
export const meta = () =>
  seo({
    title: "Sign in",
    description: "Sign in with Google to manage your licenses, devices and usage.",
    path: "/login",
    noindex: true,
  });

export default LoginPage;
