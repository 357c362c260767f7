import { readPage } from "../features/content/content.server";
import { StaticContentPage } from "../features/content/static-content-page";
import { seo } from "../lib/seo";
import type { Route } from "./+types/privacy";

export const loader = () => readPage("pages", "privacy");

export const meta = ({ data }: Route.MetaArgs) =>
  seo({ title: data?.title ?? "Privacy", description: data?.description ?? "", path: "/privacy" });

export default function PrivacyPage({ loaderData }: Route.ComponentProps) {
  return <StaticContentPage page={loaderData} eyebrow="Legal" />;
}
