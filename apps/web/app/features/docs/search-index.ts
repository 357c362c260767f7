/** Shared by the build-time index builder and the in-browser search: one set of MiniSearch options. */
export interface SearchDocument {
  id: string;
  slug: string;
  page: string;
  heading: string;
  text: string;
}

/**
 * Words a question carries that say nothing about the docs ("how do I pause a task" is a search for "pause task"). Only
 * the query drops them: the index keeps every word.
 */
const QUERY_STOP_WORDS = new Set(
  "a an and are as at be by can could do does for from how i in is it me my of on or should the to what when where which who why will with you your".split(
    " ",
  ),
);

/** A query word as the index holds it (lower case), or nothing for a word that says nothing. */
export function queryTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return QUERY_STOP_WORDS.has(lower) ? null : lower;
}

/**
 * One typo is forgiven in a word of five letters or more ("embedings", "temprature"); a shorter word must be spelled
 * right, or "helm" would find "held" and "mcp" would find "map".
 */
export function typoAllowance(term: string): number | false {
  return term.length >= 5 ? 0.2 : false;
}

export const SEARCH_OPTIONS = {
  fields: ["page", "heading", "text"],
  storeFields: ["slug", "page", "heading", "text"],
  // Every word of the query must match (as a word, the start of one, or with one typo): a section that matches only
  // some of them is not what was asked for, and no section is a clear "No results".
  searchOptions: {
    boost: { page: 3, heading: 2 },
    prefix: true,
    fuzzy: typoAllowance,
    combineWith: "AND",
    processTerm: queryTerm,
  },
} as const;

export const SEARCH_INDEX_PATH = "/search-index.json";
