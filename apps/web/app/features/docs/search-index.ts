/** Shared by the build-time index builder and the in-browser search: one set of MiniSearch options. */
export interface SearchDocument {
  id: string;
  slug: string;
  page: string;
  heading: string;
  text: string;
}

export const SEARCH_OPTIONS = {
  fields: ["page", "heading", "text"],
  storeFields: ["slug", "page", "heading", "text"],
  searchOptions: { boost: { page: 3, heading: 2 }, prefix: true, fuzzy: 0.2 },
} as const;

export const SEARCH_INDEX_PATH = "/search-index.json";
