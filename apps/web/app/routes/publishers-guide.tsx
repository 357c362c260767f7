import { readPage } from "../features/content/content.server";
import { StaticContentPage } from "../features/content/static-content-page";
import { STATIC_PAGE } from "../lib/route-handle";
import { seo } from "../lib/seo";
import type { Route } from "./+types/publishers-guide";

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export const loader = () => readPage("pages", "publishers-guide");

export const meta = ({ data }: Route.MetaArgs) =>
  seo({ title: data?.title ?? "Publisher's guide", description: data?.description ?? "", path: "/publishers-guide" });

/** For publishers building on the licensing service; deliberately not one of the ten docs pages (spec). */
export default function PublishersGuidePage({ loaderData }: Route.ComponentProps) {
  return <StaticContentPage page={loaderData} eyebrow="Developers" />;
}
