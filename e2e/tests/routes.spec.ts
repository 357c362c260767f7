import { expect, test } from "./fixtures";
import { CLIENT_ONLY_PAGES, PUBLIC_PAGES } from "./routes";

test.describe("every public route", () => {
  for (const { path, heading } of PUBLIC_PAGES) {
    test(`${path} renders its heading, title and canonical link, with no errors`, async ({ page }) => {
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
      const response = await page.goto(path);
      expect(response?.status()).toBe(200);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
      await expect(page).toHaveTitle(/Flotilla/);
      const description = await page.locator('meta[name="description"]').getAttribute("content");
      expect(description?.length ?? 0).toBeGreaterThan(50);
      await expect(page.locator('link[rel="canonical"]')).toHaveAttribute(
        "href",
        new RegExp(`${path === "/" ? "/$" : path}`),
      );
      await expect(page.locator('meta[property="og:title"]')).toHaveCount(1);
      expect(errors).toEqual([]);
    });
  }

  test("client-only routes load in the browser", async ({ page }) => {
    for (const path of CLIENT_ONLY_PAGES) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(200);
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    }
  });

  test("an unknown page shows the designed 404 with status 404", async ({ page }) => {
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(/drifted off course/);
    await page.getByRole("link", { name: "Documentation" }).first().click();
    await expect(page).toHaveURL(/\/docs$/);
  });
});

test.describe("prerendered HTML, without JavaScript", () => {
  test.use({ javaScriptEnabled: false });
  for (const { path, heading } of PUBLIC_PAGES) {
    test(`${path} has its heading in the static HTML`, async ({ page }) => {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
    });
  }
});

test("sitemap lists every public page and no client-only route; robots points to it", async ({ request }) => {
  const sitemap = await (await request.get("/sitemap.xml")).text();
  const locs = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]!).pathname);
  const expected = PUBLIC_PAGES.map((p) => p.path).filter((p) => p !== "/docs");
  expect(locs.sort()).toEqual([...expected].sort());
  const robots = await (await request.get("/robots.txt")).text();
  expect(robots).toContain("Sitemap:");
  expect(robots).toContain("Disallow: /dashboard");
});

test("the RSS feed lists the published posts", async ({ request }) => {
  const response = await request.get("/blog/rss.xml");
  expect(response.status()).toBe(200);
  const xml = await response.text();
  expect(xml.match(/<item>/g)).toHaveLength(8);
  expect(xml).toContain("/blog/pricing-philosophy");
  expect(xml).not.toContain("/blog/custom-workflows-tasks");
});
