import { expect, test } from "./fixtures";

test.describe("global navigation", () => {
  test("highlights the current section and offers Get Started when signed out", async ({ page }) => {
    await page.goto("/blog/light-dark-mode");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Blog" })).toHaveAttribute("aria-current", "page");
    await expect(nav.getByRole("link", { name: "Pricing" })).not.toHaveAttribute("aria-current", "page");
    await page.getByRole("link", { name: "Get Started" }).click();
    await expect(page).toHaveURL(/\/login$/);
  });

  test("the Docs dropdown lists the ten pages and works from the keyboard", async ({ page }) => {
    await page.goto("/");
    const trigger = page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Docs" });
    await trigger.focus();
    await page.keyboard.press("Enter");
    await expect(trigger).toHaveAttribute("aria-expanded", "true");
    const panel = page.locator(`#${await trigger.getAttribute("aria-controls")}`);
    await expect(panel.getByRole("link")).toHaveCount(10);
    await page.keyboard.press("Escape");
    await expect(trigger).toHaveAttribute("aria-expanded", "false");
    await expect(trigger).toBeFocused();
    await trigger.click();
    await panel.getByRole("link", { name: "Memory Architecture" }).click();
    await expect(page).toHaveURL(/\/docs\/memory-architecture$/);
    await expect(trigger).toHaveAttribute("aria-current", "page");
  });

  test("scrolls to the top on every path change", async ({ page }) => {
    await page.goto("/docs/agents");
    await page.mouse.wheel(0, 4000);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(500);
    await page.getByRole("link", { name: "Next" }).first().click();
    await expect(page).toHaveURL(/\/docs\/projects$/);
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  });

  test("footer anchors lead to the home page sections", async ({ page }) => {
    await page.goto("/pricing");
    const footer = page.getByRole("contentinfo");
    await expect(footer).toContainText("© 2025");
    await footer.getByRole("link", { name: "Roadmap" }).click();
    await expect(page).toHaveURL(/\/#roadmap$/);
    await expect(page.locator("#roadmap")).toBeInViewport();
  });
});
