// Rewrites a prerendered page so that its JavaScript starts loading after the page has painted.
//
// React Router puts a modulepreload link for every module of the route in <head> and starts the app with
// an inline module script. Those downloads compete with the stylesheet and images for the first paint,
// which the prerendered HTML does not need them for (measured in bench/web.mjs: on a throttled phone the
// first paint waits for ~120 KB of JavaScript). Here the inline module is kept, inert, as
// <script type="text/x-module">, and a small classic script starts it, with the preloads, after the
// frame that follows the load event, or at the first interaction, whichever comes first. The module runs with exactly the same text,
// so the page's CSP hash for it (apps/api/src/plugins/site.ts hashes every inline script) still applies.
//
// Links work before hydration (they are real <a href>); buttons wait for it, as they always did.

const PRELOAD = /<link rel="modulepreload" href="([^"]+)"\/>/g;
const BOOT_MODULE = /<script type="module" async="">([\s\S]*?)<\/script>/;
export const INERT_MODULE_ID = "app-module";

/** The classic script that starts the app; `hrefs` are the modules to preload in parallel. */
export function startScript(hrefs) {
  return `(function(){var started=false;function start(){if(started)return;started=true;${JSON.stringify(hrefs)}.forEach(function(h){var l=document.createElement("link");l.rel="modulepreload";l.href=h;document.head.appendChild(l)});var s=document.createElement("script");s.type="module";s.textContent=document.getElementById("${INERT_MODULE_ID}").textContent;document.body.appendChild(s)}["pointerdown","keydown","touchstart","focusin"].forEach(function(t){addEventListener(t,start,{once:true,passive:true,capture:true})});function afterPaint(){requestAnimationFrame(function(){setTimeout(start,0)})}if(document.readyState==="complete")afterPaint();else addEventListener("load",afterPaint,{once:true})})();`;
}

/** Returns the page rewritten, or null when it has no app module to defer. */
export function deferHydration(html) {
  const boot = BOOT_MODULE.exec(html);
  if (!boot) return null;
  const hrefs = [...html.matchAll(PRELOAD)].map((match) => match[1]);
  const withoutPreloads = html.replace(PRELOAD, "");
  return withoutPreloads.replace(
    BOOT_MODULE,
    () =>
      `<script type="text/x-module" id="${INERT_MODULE_ID}">${boot[1]}</script><script>${startScript(hrefs)}</script>`,
  );
}
