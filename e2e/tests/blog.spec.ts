import { expect, test } from "./fixtures";

test.describe("blog", () => {
  test("filters by category, featuring the first post of the filtered list", async ({ page }) => {
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
    await expect(page.locator("article")).toHaveCount(10);
    await expect(page.locator("article[data-featured]")).toHaveCount(1);

    await page.getByRole("button", { name: "Feature Spotlight" }).click();
    await expect(page.getByRole("button", { name: "Feature Spotlight" })).toHaveAttribute("aria-pressed", "true");
    await expect(page.locator("article")).toHaveCount(2);
    const featured = page.locator("article[data-featured]");
    await expect(featured).toContainText("Feature Spotlight");

    await page.getByRole("button", { name: "Methodology" }).click();
    await expect(page.locator("article")).toHaveCount(1);
    await expect(page.locator("article[data-featured]")).toContainText("Spec-Driven Vibe Coding");

    await page.getByRole("button", { name: "All" }).click();
    await expect(page.locator("article")).toHaveCount(10);
  });

  test("an article shows its back link, category, author, date and read time", async ({ page }) => {
    await page.goto("/blog/memory-architecture-deep-dive");
    await expect(page.getByText("Technical", { exact: true })).toBeVisible();
    await expect(page.getByText("8 min read")).toBeVisible();
    await expect(page.locator("article time")).toHaveText(/^[A-Z][a-z]+ \d{1,2}, 2025$/);
    await page.getByRole("link", { name: "Back to blog" }).click();
    await expect(page).toHaveURL(/\/blog$/);
  });

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
