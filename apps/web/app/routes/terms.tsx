import { readPage } from "../features/content/content.server";
import { StaticContentPage } from "../features/content/static-content-page";
import { seo } from "../lib/seo";
import type { Route } from "./+types/terms";

export const loader = () => readPage("pages", "terms");

export const meta = ({ data }: Route.MetaArgs) =>
  seo({ title: data?.title ?? "Terms", description: data?.description ?? "", path: "/terms" });

export default function TermsPage({ loaderData }: Route.ComponentProps) {
  return <StaticContentPage page={loaderData} eyebrow="Legal" />;
}
