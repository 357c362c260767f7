import { expect, test } from "./fixtures";

test.describe("theme", () => {
  test("follows the system preference on first visit", async ({ browser }) => {
    const context = await browser.newContext({ colorScheme: "dark" });
    const page = await context.newPage();
    await page.goto("/");
    await expect(page.locator("html")).toHaveClass(/dark/);
    await context.close();
  });

  test("the toggle switches the theme, which is remembered with no flash on reload", async ({ page }) => {
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto("/pricing");
    await expect(page.locator("html")).not.toHaveClass(/dark/);
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await expect(page.locator("html")).toHaveClass(/dark/);

    // The class must be on <html> before any script of the app runs: check at the first paint.
    await page.addInitScript(() => {
      document.addEventListener("DOMContentLoaded", () => {
        (window as unknown as { themeAtLoad: string }).themeAtLoad = document.documentElement.className;
      });
    });
    await page.reload();
    expect(await page.evaluate(() => (window as unknown as { themeAtLoad: string }).themeAtLoad)).toContain("dark");
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    await expect(page.locator("html")).not.toHaveClass(/dark/);
  });
});
