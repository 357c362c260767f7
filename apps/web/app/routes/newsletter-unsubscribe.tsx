import { useSearchParams } from "react-router";
import { NewsletterUnsubscribe } from "../features/blog/newsletter-unsubscribe";
import { seo } from "../lib/seo";

/** Client-only route (never prerendered): /newsletter/unsubscribe?token=… from the newsletter's emails. */
export const meta = () =>
  seo({
    title: "Unsubscribe from the newsletter",
    description: "Stop receiving the newsletter.",
    path: "/newsletter/unsubscribe",
    noindex: true,
  });

export default function NewsletterUnsubscribeRoute() {
  const [params] = useSearchParams();
  const token = params.get("token");
  return <NewsletterUnsubscribe key={token ?? ""} token={token} />;
}
