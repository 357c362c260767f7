import { test as base, type Page } from "@playwright/test";

export { expect, type Locator, type Page } from "@playwright/test";

/**
 * Prerendered pages start their JavaScript after the first paint (apps/web/scripts/defer-hydration.mjs):
 * a button clicked in the instant between the load event and hydration does nothing. Journeys wait for
 * hydration after every full page load, as a person waits for a page to respond. Documents that are not
 * app pages (XML, media) have no app module and are not waited for.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const app = document.getElementById("app-module") ?? document.querySelector('script[type="module"]');
    return app === null || document.documentElement.getAttribute("data-hydrated") === "true";
  });
}

const NAVIGATIONS = ["goto", "reload", "goBack", "goForward"] as const;

/** Makes the page's full-load navigations resolve once the app on the new page is hydrated. */
export function waitingForHydration(page: Page): Page {
  for (const name of NAVIGATIONS) {
    const navigate = page[name].bind(page) as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(page, name, {
      configurable: true,
      value: async (...args: unknown[]) => {
        const response = await navigate(...args);
        await waitForHydration(page);
        return response;
      },
    });
  }
  return page;
}

export const test = base.extend({
  page: async ({ page, javaScriptEnabled }, use) => {
    await use(javaScriptEnabled === false ? page : waitingForHydration(page));
  },
});
