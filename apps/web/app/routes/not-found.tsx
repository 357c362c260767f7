import { NOT_FOUND_SEO } from "../features/site/error-seo";
import { NotFoundPage } from "../features/site/not-found-page";
import { STATIC_PAGE } from "../lib/route-handle";
import { seo } from "../lib/seo";

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export const meta = () => seo(NOT_FOUND_SEO);

export default NotFoundPage;
