import { AuthCallbackPage } from "../features/auth/auth-callback-page";
import { seo } from "../lib/seo";

/** Client-only route (never prerendered): /auth/callback and everything beneath it. */
export const meta = () =>
  seo({ title: "Authenticating...", description: "Completing your sign-in.", path: "/auth/callback", noindex: true });

export default AuthCallbackPage;
