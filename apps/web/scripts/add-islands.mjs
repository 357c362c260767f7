// Gives a prerendered content page the islands it names (docs/decisions/0040). The page's HTML is final and
// carries no React Router runtime; each interactive part says which island it needs with data-island="<name>".
//
// The page lists its islands in <script type="application/json" id="islands"> (entries and the chunks they import),
// and a few bytes of inline script load them once the first contentful paint is recorded: the first paint waits for
// nothing but the HTML and the stylesheet (a lab's simulated FCP counts every request started before it). Each entry is a
// module script marked data-island-entry (app/islands/runtime.ts counts them), its chunks modulepreloaded alongside
// so nothing waits on a chain of imports. <html data-islands="pending"> turns "ready" once every island started.

const ENTRY = /^app\/islands\/([a-z-]+)\.ts$/;

/**
 * The islands from the bundler's manifest (vite.islands.config.ts): for each entry, its file and every chunk it
 * imports statically, transitively (what the browser needs before the island runs; dynamic imports wait for intent).
 */
export function islandEntries(viteManifest) {
  const url = (key) => `/${viteManifest[key].file}`;
  const entries = {};
  for (const [key, chunk] of Object.entries(viteManifest)) {
    const name = chunk.isEntry ? ENTRY.exec(key)?.[1] : undefined;
    if (name) entries[name] = { file: url(key), imports: [...staticImports(viteManifest, key)].map(url) };
  }
  return entries;
}

function staticImports(viteManifest, key, seen = new Set()) {
  for (const imported of viteManifest[key].imports ?? []) {
    if (seen.has(imported)) continue;
    seen.add(imported);
    staticImports(viteManifest, imported, seen);
  }
  return seen;
}

const DIALOG = /^app\/islands\/react\/([a-z-]+)\.tsx$/;

/**
 * The dialogs the opener island imports on demand (app/islands/opener.ts), each with every file it needs: its chunk
 * and its static imports, transitively. The opener modulepreloads them when the browser is idle (fetched and
 * compiled, not run) so a tap only runs them.
 */
export function dialogChunks(viteManifest) {
  const url = (key) => `/${viteManifest[key].file}`;
  const dialogs = {};
  for (const key of viteManifest["app/islands/opener.ts"]?.dynamicImports ?? []) {
    const name = DIALOG.exec(key)?.[1];
    if (name) dialogs[name] = [key, ...staticImports(viteManifest, key)].map(url);
  }
  return dialogs;
}

const ISLAND_ATTRIBUTE = /\sdata-island="([a-z-]+)"/g;
const OPENS_ATTRIBUTE = /\sdata-opens="([a-z-]+)"/g;
const APP_RUNTIME = "window.__reactRouterContext";
export const ISLANDS_DATA_ID = "islands";

/** The island names a page's markup asks for, in the order they first appear (the markup inside <template>s too). */
export function islandsNamed(html) {
  return [...new Set([...html.matchAll(ISLAND_ATTRIBUTE)].map((match) => match[1]))];
}

/**
 * Loads the islands listed in #islands once the page's first contentful paint is recorded (a lab's simulated FCP
 * counts every request started before it, and a first frame may be blank), or after FALLBACK_MS whatever happens
 * (a browser without paint timing, a page that never paints). Classic script: runs where it stands.
 */
const FALLBACK_MS = 3000;
const LOADER = `(function(){var d=document,l=JSON.parse(d.getElementById("${ISLANDS_DATA_ID}").textContent),s=0;function go(){if(s)return;s=1;l.preload.forEach(function(h){var e=d.createElement("link");e.rel="modulepreload";e.href=h;d.head.appendChild(e)});l.entries.forEach(function(x){var e=d.createElement("script");e.type="module";e.src=x.file;e.setAttribute("data-island-entry",x.name);d.head.appendChild(e)})}function soon(){setTimeout(go,0)}setTimeout(go,${FALLBACK_MS});try{var o=new PerformanceObserver(function(n){if(n.getEntriesByName("first-contentful-paint").length){o.disconnect();soon()}});o.observe({type:"paint",buffered:true})}catch(e){requestAnimationFrame(soon)}})();`;

/** The islands a finished page loads, read back from it (tests, benchmarks). */
export function islandsOf(html) {
  const match = new RegExp(`<script type="application/json" id="${ISLANDS_DATA_ID}">([^<]*)</script>`).exec(html);
  return match ? JSON.parse(match[1]) : null;
}

/**
 * Returns the page with its islands added, or null when it is not a content page (the portal's app shell carries
 * React Router's runtime and hydrates) or already has them. Throws when a page names an island that the islands
 * build did not produce: a typo must fail the build, not leave a dead button.
 */
export function addIslands(html, manifest, dialogs = {}) {
  if (html.includes(APP_RUNTIME) || html.includes(`id="${ISLANDS_DATA_ID}"`)) return null;
  const names = islandsNamed(html);
  const missing = names.filter((name) => !manifest[name]);
  if (missing.length > 0) throw new Error(`no island named ${missing.join(", ")} (app/islands/<name>.ts)`);
  if (names.length === 0) return html;
  const preload = [...new Set(names.flatMap((name) => manifest[name].imports))];
  const opened = [...new Set([...html.matchAll(OPENS_ATTRIBUTE)].map((match) => match[1]))].filter(
    (name) => dialogs[name],
  );
  const list = {
    entries: names.map((name) => ({ name, file: manifest[name].file })),
    preload,
    // What the page's dialogs need beyond what loads up front, for the opener's idle modulepreload.
    ...(opened.length > 0
      ? { dialogs: [...new Set(opened.flatMap((name) => dialogs[name]))].filter((url) => !preload.includes(url)) }
      : {}),
  };
  const tags = `<script type="application/json" id="${ISLANDS_DATA_ID}">${JSON.stringify(list)}</script><script>${LOADER}</script>`;
  return html
    .replace(/<html(\s|>)/, (_, after) => `<html data-islands="pending"${after}`)
    .replace("</body>", () => `${tags}</body>`);
}
