import { expect, test } from "./fixtures";
import { CLIENT_ONLY_PAGES, PUBLIC_PAGES } from "./routes";

/** The first element of the HTML with this opening-tag pattern, its inner text (tags dropped), or null. */
function innerText(html: string, open: RegExp, tag: string): string | null {
  const start = html.search(open);
  if (start === -1) return null;
  const inner = html.slice(html.indexOf(">", start) + 1, html.indexOf(`</${tag}>`, start));
  return inner
    .replace(/<[^>]+>/g, "")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .trim();
}
const attribute = (html: string, tag: RegExp, name: string) =>
  new RegExp(`${tag.source}[^>]*?\\b${name}="([^"]*)"`).exec(html)?.[1] ?? null;

// Markup a search engine or a reader without JavaScript gets: read from the server's answer, no browser needed.
test("every public page's static HTML has its heading, title, description, canonical link and Open Graph title", async ({
  request,
}) => {
  for (const { path, heading } of PUBLIC_PAGES) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(200);
    const html = await response.text();
    expect(innerText(html, /<h1[\s>]/, "h1"), path).toMatch(heading);
    expect(innerText(html, /<title[\s>]/, "title"), path).toMatch(/Flotilla/);
    expect(attribute(html, /<meta name="description"/, "content")?.length ?? 0, path).toBeGreaterThan(50);
    expect(attribute(html, /<link rel="canonical"/, "href"), path).toMatch(new RegExp(`${path === "/" ? "/$" : path}`));
    expect(html.match(/<meta property="og:title"/g), path).toHaveLength(1);
  }
});

test.describe("every public route in the browser", () => {
  for (const { path, heading } of PUBLIC_PAGES) {
    test(`${path} renders its heading with no errors`, async ({ page }) => {
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
      const response = await page.goto(path);
      expect(response?.status()).toBe(200);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
      await expect(page).toHaveTitle(/Flotilla/);
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
