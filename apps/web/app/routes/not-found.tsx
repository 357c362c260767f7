import { NOT_FOUND_SEO } from "../features/site/error-seo";
import { NotFoundPage } from "../features/site/not-found-page";
import { seo } from "../lib/seo";

export const meta = () => seo(NOT_FOUND_SEO);

export default NotFoundPage;
