import { expect, type Page, test } from "./fixtures";

/**
 * Unknown paths end on the designed 404 page, whatever prefix they start with: status 404 from the server,
 * static HTML with its islands started (no React Router runtime, so no hydration to mismatch), with the site's header and
 * its navigation working. Docs are the exception the spec makes: any unknown /docs/* path shows getting-started.
 */
const UNKNOWN_PATHS: readonly { prefix: string; path: string }[] = [
  { prefix: "/", path: "/no-such-page" },
  { prefix: "/blog (a mistyped slug)", path: "/blog/spec-driven-vibe-codin" },
  { prefix: "/blog (a nested path)", path: "/blog/memory-architecture-deep-dive/extra" },
  { prefix: "/pricing", path: "/pricing/enterprise" },
  { prefix: "/about", path: "/about/team" },
  { prefix: "/terms", path: "/terms/2024" },
  { prefix: "/privacy", path: "/privacy/cookies" },
  { prefix: "/api-reference", path: "/api-reference/v2" },
  { prefix: "/login", path: "/login/google" },
  { prefix: "/dashboard", path: "/dashboard/licenses" },
  { prefix: "/auth", path: "/auth/logout" },
  { prefix: "/newsletter", path: "/newsletter/unsubscribe/extra" },
  // React Router matches case-insensitively: an unknown path in capitals must not hydrate a known route.
  { prefix: "/Blog (capitals)", path: "/Blog/No-Such-Post" },
  { prefix: "/PRICING (capitals)", path: "/PRICING/enterprise" },
];

/** A known page spelled in capitals is redirected to its own address rather than answered with the 404 page. */
const CASE_VARIANTS: readonly { path: string; canonical: string; heading: RegExp }[] = [
  { path: "/Pricing", canonical: "/pricing", heading: /Simple plans/ },
  { path: "/Blog/Memory-Architecture-Deep-Dive", canonical: "/blog/memory-architecture-deep-dive", heading: /Memory/ },
  { path: "/Docs/Agents", canonical: "/docs/agents", heading: /Agents/ },
];

/** Errors a visitor's console shows, minus the one line Chromium always logs for a document served with 404. */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const documentStatus = message.location().url === page.url() && /status of 404/.test(message.text());
    if (!documentStatus) errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  return errors;
}

async function expectSiteChrome(page: Page) {
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav).toBeVisible();
  for (const label of ["Home", "Pricing", "Blog", "About"]) {
    await expect(nav.getByRole("link", { name: label, exact: true })).toBeVisible();
  }
  await expect(nav.getByRole("button", { name: "Docs" })).toBeVisible();
  await expect(page.getByRole("contentinfo")).toBeVisible();
}

for (const { prefix, path } of UNKNOWN_PATHS) {
  test(`unknown path under ${prefix} ends on the 404 page (${path})`, async ({ page }) => {
    const errors = collectErrors(page);
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(page.locator("html")).toHaveAttribute("data-islands", "ready");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("This page drifted off course");
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    await expectSiteChrome(page);
    // The page is alive: its navigation works.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Pricing", exact: true }).click();
    await expect(page).toHaveURL(/\/pricing$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(/Simple plans/);
    expect(errors).toEqual([]);
  });
}

for (const { path, canonical, heading } of CASE_VARIANTS) {
  test(`${path} is redirected to ${canonical} and its islands start cleanly`, async ({ page }) => {
    const errors = collectErrors(page);
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    await expect(page).toHaveURL(new RegExp(`${canonical}$`));
    await expect(page.locator("html")).toHaveAttribute("data-islands", "ready");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
    expect(errors).toEqual([]);
  });
}

test("an unknown /docs path shows getting-started (spec), its islands started cleanly", async ({ page }) => {
  const errors = collectErrors(page);
  const response = await page.goto("/docs/no-such-page");
  expect(response?.status()).toBe(200);
  await expect(page.locator("html")).toHaveAttribute("data-islands", "ready");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Getting Started");
  await expectSiteChrome(page);
  expect(errors).toEqual([]);
});

test("a client-side link to an unknown page shows the 404 page inside the site", async ({ page }) => {
  const errors = collectErrors(page);
  // From the portal, the React app (content pages have no router: their links are page loads). A client-side
  // navigation, as a <Link> with a mistyped target would make.
  await page.goto("/login");
  await page.evaluate(() =>
    (
      window as unknown as { __reactRouterDataRouter: { navigate: (to: string) => Promise<void> } }
    ).__reactRouterDataRouter.navigate("/blog/no-such-post"),
  );
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This page drifted off course");
  await expectSiteChrome(page);
  expect(errors).toEqual([]);
});
