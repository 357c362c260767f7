import { EXECUTOR_CLIS, TEAM_INTEGRATIONS } from "../../packages/contracts/src/integrations";
import { expect, test } from "./fixtures";

test.describe("docs", () => {
  test("the sidebar has three groups and highlights the current page", async ({ page }) => {
    await page.goto("/docs/tasks");
    const sidebar = page.getByRole("navigation", { name: "Documentation" }).first();
    await expect(sidebar.getByRole("heading")).toHaveText(["Getting Started", "Core Concepts", "Advanced Features"]);
    await expect(sidebar.getByRole("link", { name: "Tasks" })).toHaveAttribute("aria-current", "page");
    await expect(sidebar.locator('[aria-current="page"]')).toHaveCount(1);
  });

  test("any other /docs path shows getting-started", async ({ page }) => {
    await page.goto("/docs/this/does/not/exist");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Getting Started");
    const sidebar = page.getByRole("navigation", { name: "Documentation" }).first();
    await expect(sidebar.getByRole("link", { name: "Prerequisites" })).toHaveAttribute("aria-current", "page");
  });

  test("the memory page carries the example configuration with its constants", async ({ page }) => {
    await page.goto("/docs/memory-architecture");
    const code = page.locator(".code-block pre").filter({ hasText: "similarityThreshold" });
    await expect(code).toContainText('"maxResults": 10');
    await expect(code).toContainText('"similarityThreshold": 0.7');
    await expect(code).toContainText('"temporalWeight": 0.3');
    await expect(code).toContainText("384");
  });

  test("search opens with Ctrl+K, finds a section and navigates to it", async ({ page }) => {
    await page.goto("/docs/getting-started");
    await page.keyboard.press("Control+k");
    const dialog = page.getByRole("dialog", { name: "Search the docs" });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("combobox").fill("embeddings dimensions");
    const first = dialog.getByRole("option").first();
    await expect(first).toBeVisible();
    await expect(first).toContainText(/Embeddings|Memory/);
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(/\/docs\/(embeddings|memory-architecture)/);
  });

  test("search opens with Caps Lock on, and says 'No results' for words the docs do not have", async ({ page }) => {
    await page.goto("/docs/getting-started");
    // An upper-case K without Shift: what Ctrl+K sends with Caps Lock on.
    await page.keyboard.press("Control+K");
    const dialog = page.getByRole("dialog", { name: "Search the docs" });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("combobox").fill("kubernetes helm");
    await expect(dialog.getByText("No results for “kubernetes helm”.")).toBeVisible();
    await expect(dialog.getByRole("option")).toHaveCount(0);
    await dialog.getByRole("combobox").fill("how do I pause a task");
    await expect(dialog.getByRole("option").first()).toContainText("Tasks › Pause");
  });

  test("search finds the supported tools by name (decision 0021)", async ({ page }) => {
    await page.goto("/docs/agents");
    await page.keyboard.press("Control+k");
    const dialog = page.getByRole("dialog", { name: "Search the docs" });
    const names = [...EXECUTOR_CLIS.map((cli) => cli.name), ...Object.values(TEAM_INTEGRATIONS).map((t) => t.name)];
    for (const name of names) {
      await dialog.getByRole("combobox").fill(name);
      await expect(dialog.getByRole("option").first(), name).toContainText(/Getting Started|Executors|Pricing/);
    }
  });

  test("the executors page names the four CLIs with their commands", async ({ page }) => {
    await page.goto("/docs/executors");
    const table = page.locator("table").filter({ hasText: "Command Flotilla looks for" });
    for (const cli of EXECUTOR_CLIS) {
      await expect(table.getByRole("row").filter({ hasText: cli.name })).toContainText(cli.command);
    }
  });

  test("the breadcrumb names the page's group, and getting-started's is Getting Started", async ({ page }) => {
    await page.goto("/docs/getting-started");
    const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
    await expect(crumbs).toHaveText(/^Docs\s*›\s*Getting Started$/);
    await expect(crumbs).not.toContainText("Prerequisites");
    await page.goto("/docs/agents");
    await expect(crumbs).toHaveText(/^Docs\s*›\s*Core Concepts$/);
  });

  test("the search button shows the shortcut of the visitor's platform", async ({ page }) => {
    await page.goto("/docs/agents");
    await expect(page.getByTestId("search-shortcut").first()).toHaveText("Ctrl K");
    await page.addInitScript(() => {
      Object.defineProperty(navigator, "platform", { get: () => "MacIntel" });
      Object.defineProperty(navigator, "userAgentData", { get: () => ({ platform: "macOS" }) });
    });
    await page.reload();
    await expect(page.getByTestId("search-shortcut").first()).toHaveText("⌘K");
  });

  test("has an on-this-page outline and previous/next links", async ({ page }) => {
    await page.goto("/docs/agents");
    const outline = page.getByRole("navigation", { name: "On this page" });
    expect(await outline.getByRole("link").count()).toBeGreaterThan(3);
    const pager = page.getByRole("navigation", { name: "Previous and next pages" });
    await expect(pager.getByRole("link", { name: /Previous/ })).toContainText("Prerequisites");
    await expect(pager.getByRole("link", { name: /Next/ })).toContainText("Projects");
  });

  test("code blocks have a working copy button", async ({ page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto("/docs/memory-architecture");
    const block = page.locator(".code-block").filter({ hasText: "similarityThreshold" });
    await block.getByRole("button", { name: "Copy code" }).click();
    await expect(block.getByRole("button", { name: "Copy code" })).toHaveText("Copied");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain("similarityThreshold");
  });

  test("a screenshot that fails to load is replaced by the 'screenshot coming soon' placeholder", async ({ page }) => {
    await page.route("**/images/docs/*.webp", (route) => route.abort());
    await page.goto("/docs/getting-started");
    // The screenshot loads lazily: bring it into view, as a reader scrolling down would.
    await page.locator("img.content-image").first().scrollIntoViewIfNeeded();
    const placeholder = page.getByRole("img", { name: "screenshot coming soon" });
    await expect(placeholder).toHaveAttribute("src", /screenshot-coming-soon\.svg$/);
  });

  test("screenshots load when present", async ({ page }) => {
    await page.goto("/docs/agents");
    const img = page.locator("img.content-image").first();
    await img.scrollIntoViewIfNeeded();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  });
});
