import { readPage } from "../features/content/content.server";
import { StaticContentPage } from "../features/content/static-content-page";
import { seo } from "../lib/seo";
import type { Route } from "./+types/about";

export const loader = () => readPage("pages", "about");

export const meta = ({ data }: Route.MetaArgs) =>
  seo({ title: data?.title ?? "About", description: data?.description ?? "", path: "/about" });

export default function AboutPage({ loaderData }: Route.ComponentProps) {
  return <StaticContentPage page={loaderData} eyebrow="About" />;
}
