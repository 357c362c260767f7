// Gives a prerendered content page the islands it names (docs/decisions/0040). The page's HTML is final and
// carries no React Router runtime; each interactive part says which island it needs with data-island="<name>".
// Each named island becomes a module script (data-island-entry: app/islands/runtime.ts counts them to mark
// the page ready), with a modulepreload for each chunk it imports, so nothing waits on a chain of imports.

const ENTRY = /^app\/islands\/([a-z-]+)\.ts$/;

/**
 * The islands from the bundler's manifest (vite.islands.config.ts): for each entry, its file and every chunk it
 * imports statically, transitively (what the browser needs before the island runs; dynamic imports wait for intent).
 */
export function islandEntries(viteManifest) {
  const url = (key) => `/${viteManifest[key].file}`;
  const staticImports = (key, seen = new Set()) => {
    for (const imported of viteManifest[key].imports ?? []) {
      if (seen.has(imported)) continue;
      seen.add(imported);
      staticImports(imported, seen);
    }
    return seen;
  };
  const entries = {};
  for (const [key, chunk] of Object.entries(viteManifest)) {
    const name = chunk.isEntry ? ENTRY.exec(key)?.[1] : undefined;
    if (name) entries[name] = { file: url(key), imports: [...staticImports(key)].map(url) };
  }
  return entries;
}

const ISLAND_ATTRIBUTE = /\sdata-island="([a-z-]+)"/g;
const APP_RUNTIME = "window.__reactRouterContext";

/** The island names a page's markup asks for, in the order they first appear (the markup inside <template>s too). */
export function islandsNamed(html) {
  return [...new Set([...html.matchAll(ISLAND_ATTRIBUTE)].map((match) => match[1]))];
}

/**
 * Returns the page with its island scripts added before </head>, or null when it is not a content page (the
 * portal's app shell carries React Router's runtime and hydrates) or already has its islands. Throws when a page names an island that the
 * islands build did not produce: a typo must fail the build, not leave a dead button.
 */
export function addIslands(html, manifest) {
  if (html.includes(APP_RUNTIME) || html.includes("data-island-entry")) return null;
  const names = islandsNamed(html);
  const missing = names.filter((name) => !manifest[name]);
  if (missing.length > 0) throw new Error(`no island named ${missing.join(", ")} (app/islands/<name>.ts)`);
  const preloads = [...new Set(names.flatMap((name) => manifest[name].imports))];
  const tags = [
    ...preloads.map((href) => `<link rel="modulepreload" href="${href}"/>`),
    ...names.map((name) => `<script type="module" src="${manifest[name].file}" data-island-entry="${name}"></script>`),
  ].join("");
  return html.replace("</head>", () => `${tags}</head>`);
}
