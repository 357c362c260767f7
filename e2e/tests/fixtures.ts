import { test as base, type Page } from "@playwright/test";

export { expect, type Locator, type Page } from "@playwright/test";

/**
 * A content page is static HTML with islands (docs/decisions/0040): it is ready when every island it loads has
 * started (<html data-islands="ready">). The portal is the React app: ready once hydrated. A button clicked
 * before then does nothing, so journeys wait after every full page load, as a person waits for a page to
 * respond. Documents that are neither (XML, media) are not waited for.
 */
export async function waitForPageReady(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const root = document.documentElement;
    // A content page says data-islands="pending" from its first byte, "ready" once every island has started.
    if (root.dataset.islands) return root.dataset.islands === "ready";
    const app = document.querySelector('script[type="module"]');
    return app === null || root.dataset.hydrated === "true";
  });
}

const NAVIGATIONS = ["goto", "reload", "goBack", "goForward"] as const;

/** Makes the page's full-load navigations resolve once the new page is ready (islands started, or app hydrated). */
export function waitingForPageReady(page: Page): Page {
  for (const name of NAVIGATIONS) {
    const navigate = page[name].bind(page) as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(page, name, {
      configurable: true,
      value: async (...args: unknown[]) => {
        const response = await navigate(...args);
        await waitForPageReady(page);
        return response;
      },
    });
  }
  return page;
}

export const test = base.extend({
  page: async ({ page, javaScriptEnabled }, use) => {
    await use(javaScriptEnabled === false ? page : waitingForPageReady(page));
  },
});
