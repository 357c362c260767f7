import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

/**
 * Tiny modules that every page loads (theme, SEO, auth state, buttons, the modal…) would otherwise be
 * split into a dozen chunks of a few hundred bytes each; one chunk compresses better and costs fewer
 * requests. Only modules already on every page's critical path belong here (the header's chevron icon too:
 * shared by the header and the docs layout, it would otherwise be a chunk of its own).
 */
const SHELL_MODULES =
  /\/(app\/lib\/(theme|seo|signup-opener|token-storage|auth)|app\/components\/(button|modal|spinner)|app\/features\/site\/(use-dismiss|error-seo)|contracts\/src\/(brand|docs|timings|navigation|messages)|lucide-react\/dist\/esm\/icons\/chevron-down)\.(tsx?|mjs)$/;

export default defineConfig({
  plugins: [tailwindcss(), reactRouter()],
  build: {
    assetsInlineLimit: 0,
    rolldownOptions: {
      output: { codeSplitting: { groups: [{ name: "shell", test: SHELL_MODULES }] } },
    },
  },
  server: { proxy: { "/api": "http://127.0.0.1:3000" } },
});
