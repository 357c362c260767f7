import { readPage } from "../features/content/content.server";
import { StaticContentPage } from "../features/content/static-content-page";
import { STATIC_PAGE } from "../lib/route-handle";
import { seo } from "../lib/seo";
import type { Route } from "./+types/privacy";

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export const loader = () => readPage("pages", "privacy");

export const meta = ({ data }: Route.MetaArgs) =>
  seo({ title: data?.title ?? "Privacy", description: data?.description ?? "", path: "/privacy" });

export default function PrivacyPage({ loaderData }: Route.ComponentProps) {
  return <StaticContentPage page={loaderData} eyebrow="Legal" />;
}
