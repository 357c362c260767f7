import { expect, test } from "./fixtures";

test.describe("blog", () => {
  test("filters by category, featuring the first post of the filtered list", async ({ page }) => {
    // Every post is in the page as a featured card and as a grid card; the filter island shows some of them.
    await page.goto("/blog");
    const filters = page.getByRole("group", { name: "Filter posts by category" }).getByRole("button");
    await expect(filters).toHaveText([
      "All",
      "Methodology",
      "Announcement",
      "Tutorial",
      "Technical",
      "Guide",
      "Best Practices",
      "Feature Spotlight",
    ]);
    await expect(page.locator("article:visible")).toHaveCount(10);
    await expect(page.locator("article[data-featured]:visible")).toHaveCount(1);

    await page.getByRole("button", { name: "Feature Spotlight" }).click();
    await expect(page.getByRole("button", { name: "Feature Spotlight" })).toHaveAttribute("aria-pressed", "true");
    await expect(page.locator("article:visible")).toHaveCount(2);
    const featured = page.locator("article[data-featured]:visible");
    await expect(featured).toContainText("Feature Spotlight");

    await page.getByRole("button", { name: "Methodology" }).click();
    await expect(page.locator("article:visible")).toHaveCount(1);
    await expect(page.locator("article[data-featured]:visible")).toContainText("Spec-Driven Vibe Coding");

    await page.getByRole("button", { name: "All" }).click();
    await expect(page.locator("article:visible")).toHaveCount(10);
  });

  test("an article shows its back link, category, author, date and read time", async ({ page }) => {
    await page.goto("/blog/memory-architecture-deep-dive");
    // The article itself, not the related posts' cards after it.
    const article = page.locator("main > article");
    await expect(article.getByText("Technical", { exact: true })).toBeVisible();
    await expect(article.getByText("8 min read")).toBeVisible();
    await expect(article.locator("time")).toHaveText(/^[A-Z][a-z]+ \d{1,2}, 2025$/);
    await page.getByRole("link", { name: "Back to blog" }).click();
    await expect(page).toHaveURL(/\/blog$/);
  });

  test("an article ends with related posts and the Stay Updated box", async ({ page }) => {
    await page.goto("/blog/memory-architecture-deep-dive");
    const related = page.getByRole("region", { name: "Keep reading" });
    const cards = related.getByRole("article");
    await expect(cards).toHaveCount(3);
    await expect(cards.getByRole("link", { name: "Memory Architecture Deep Dive" })).toHaveCount(0);
    await expect(cards.getByText("Coming Soon", { exact: true })).toHaveCount(0);
    const stay = page.getByRole("region", { name: "Stay Updated" });
    await expect(stay.getByRole("textbox")).toHaveAttribute("type", "email");
    await expect(stay.getByRole("button", { name: "Subscribe" })).toBeVisible();
    await cards.getByRole("link").first().click();
    await expect(page).toHaveURL(/\/blog\/[a-z-]+$/);
    await expect(page).not.toHaveURL(/memory-architecture-deep-dive$/);
  });

  test("a coming-soon post also offers Stay Updated and posts to read meanwhile", async ({ page }) => {
    await page.goto("/blog/custom-workflows-tasks");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Coming Soon");
    await expect(page.getByRole("region", { name: "Stay Updated" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Keep reading" }).getByRole("article")).toHaveCount(3);
  });

  test("the blog links its RSS feed visibly", async ({ page, request }) => {
    await page.goto("/blog");
    const rss = page.getByRole("link", { name: "Subscribe via RSS" });
    await expect(rss).toBeVisible();
    const href = await rss.getAttribute("href");
    expect(href).toBe("/blog/rss.xml");
    expect((await request.get(href!)).headers()["content-type"]).toMatch(/xml/);
  });

  for (const width of [375, 768, 1280, 1440]) {
    test(`post cards never start or end a line with a separator (${width} px)`, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/blog");
      // Reads what is on screen: the visible characters of each card's author · date · read time, line by line.
      const dangling = await page.locator("article time").evaluateAll((times) =>
        times.flatMap((time) => {
          const container = time.closest("div.overflow-hidden, p") as HTMLElement;
          const clip = container.getBoundingClientRect();
          const lines = new Map<number, string[]>();
          const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent ?? "";
            for (let i = 0; i < text.length; i++) {
              if (!text[i]!.trim()) continue;
              const range = document.createRange();
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              const rect = range.getBoundingClientRect();
              if (rect.right <= clip.left || rect.left >= clip.right) continue; // clipped: not on screen
              const top = Math.round(rect.top / 4);
              lines.set(top, [...(lines.get(top) ?? []), text[i]!]);
            }
          }
          return [...lines.values()]
            .filter((chars) => chars[0] === "·" || chars.at(-1) === "·")
            .map((chars) => chars.join(""));
        }),
      );
      expect(dangling).toEqual([]);
    });
  }

  test("the pricing philosophy post sets its own title, description and canonical link", async ({ page }) => {
    await page.goto("/blog/pricing-philosophy");
    const title = await page.title();
    expect(title).not.toBe("Pricing Philosophy · Flotilla");
    await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /.{60,}/);
    await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", /\/blog\/pricing-philosophy$/);
  });

  test("a cover that fails to load shows the 'Blog Image Coming Soon' placeholder", async ({ page }) => {
    await page.route("**/images/blog/*.webp", (route) => route.abort());
    await page.goto("/blog");
    await expect(page.getByText("Blog Image Coming Soon").first()).toBeVisible();
  });

  test("Pricing and Plans box links to both pricing pages", async ({ page }) => {
    await page.goto("/blog");
    const box = page.getByRole("region", { name: "Pricing and Plans" });
    await expect(box.getByRole("link", { name: /Compare plans/ })).toHaveAttribute("href", "/pricing");
    await expect(box.getByRole("link", { name: /docs/ })).toHaveAttribute("href", "/docs/pricing");
  });
});
