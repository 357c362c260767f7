import { readPage } from "../features/content/content.server";
import { StaticContentPage } from "../features/content/static-content-page";
import { seo } from "../lib/seo";
import type { Route } from "./+types/publishers-guide";

export const loader = () => readPage("pages", "publishers-guide");

export const meta = ({ data }: Route.MetaArgs) =>
  seo({ title: data?.title ?? "Publisher's guide", description: data?.description ?? "", path: "/publishers-guide" });

/** For publishers building on the licensing service; deliberately not one of the ten docs pages (spec). */
export default function PublishersGuidePage({ loaderData }: Route.ComponentProps) {
  return <StaticContentPage page={loaderData} eyebrow="Developers" />;
}
