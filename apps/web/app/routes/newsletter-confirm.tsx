import { useSearchParams } from "react-router";
import { NewsletterConfirm } from "../features/blog/newsletter-confirm";
import { seo } from "../lib/seo";

/** Client-only route (never prerendered, not in the sitemap): /newsletter/confirm?token=… from the confirmation mail. */
export const meta = () =>
  seo({
    title: "Confirm your newsletter subscription",
    description: "Confirm that you want to receive the newsletter.",
    path: "/newsletter/confirm",
    noindex: true,
  });

export default function NewsletterConfirmRoute() {
  // Read in the browser: the token never reaches a prerender or a loader.
  const [params] = useSearchParams();
  const token = params.get("token");
  return <NewsletterConfirm key={token ?? ""} token={token} />;
}
