/** Titles and descriptions of the 404 page and of a failed page, for the `meta` of the routes that show them. */
export const NOT_FOUND_SEO = {
  title: "Page not found",
  description: "This page does not exist. Find your way back to the docs, blog or home page.",
  path: "/404",
  noindex: true,
} as const;

export const PAGE_ERROR_SEO = {
  title: "Something went wrong",
  description: "This page could not be shown. Reload it, or find your way back from the home page.",
  path: "/404",
  noindex: true,
} as const;
