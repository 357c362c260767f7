import { expect, test } from "./fixtures";
import { createFreeLicense, signInToDashboard } from "./portal";

test("the mobile menu opens, lists the docs and navigates", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  const toggle = page.getByRole("button", { name: "Open menu" });
  await toggle.click();
  const menu = page.getByRole("navigation", { name: "Mobile" });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole("link", { name: "Local Embeddings" })).toBeVisible();
  await menu.locator('a[href="/pricing"]').click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(menu).toBeHidden();
});

for (const [kind, path] of [
  ["a content page (the header island)", "/"],
  ["a portal page (React)", "/login"],
] as const) {
  test(`on ${kind}, Escape and a press outside close the mobile menu; Escape gives focus back to its button`, async ({
    page,
  }) => {
    await page.goto(path);
    const toggle = page.getByRole("button", { name: "Open menu" });
    const menu = page.getByRole("navigation", { name: "Mobile" });
    await toggle.click();
    await expect(menu).toBeVisible();
    await menu.getByRole("link").first().focus();
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    await expect(page.getByRole("button", { name: "Open menu" })).toBeFocused();

    await toggle.click();
    await expect(menu).toBeVisible();
    // A press on the page below the menu.
    await page.mouse.click(200, 780);
    await expect(menu).toBeHidden();
    await expect(page.getByRole("button", { name: "Open menu" })).toHaveAttribute("aria-expanded", "false");
    // A press inside the menu (on its padding) keeps it open.
    await toggle.click();
    await menu.click({ position: { x: 4, y: 4 } });
    await expect(menu).toBeVisible();
  });
}

test("pages fit a 375 px screen without horizontal scrolling", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  for (const path of [
    "/",
    "/pricing",
    "/docs/getting-started",
    "/docs/memory-architecture",
    "/blog",
    "/blog/mcp-server-integration",
  ]) {
    await page.goto(path);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, path).toBeLessThanOrEqual(0);
  }
});

test("the dashboard's license key wraps on a phone only between its groups", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await signInToDashboard(page, `phone-${Date.now()}@example.com`, "Katherine Johnson");
  const { keyText: key } = await createFreeLicense(page);
  // Where the rendered text moves to a new line, the character before the break must be a hyphen.
  const breaks = await key.evaluate((element) => {
    const found: string[] = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const chars: { char: string; top: number }[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < (node.textContent ?? "").length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        chars.push({ char: node.textContent![i]!, top: range.getBoundingClientRect().top });
      }
    }
    for (let i = 1; i < chars.length; i++) if (chars[i]!.top > chars[i - 1]!.top + 2) found.push(chars[i - 1]!.char);
    return found;
  });
  expect(breaks.length, "the key is long enough to wrap at 375 px").toBeGreaterThan(0);
  for (const char of breaks) expect(char).toBe("-");
  // The next step for a new customer fits the phone too.
  await expect(page.getByRole("region", { name: /Next step/ })).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test("the docs menu on a phone is a styled disclosure that names the current page and closes on navigation", async ({
  page,
}) => {
  await page.goto("/docs/agents");
  const summary = page.locator("details summary").filter({ hasText: "Docs menu" });
  await expect(summary).toBeVisible();
  await expect(summary).toContainText("Agents");
  // No browser disclosure triangle: the summary is a flex row with its own chevron.
  expect(await summary.evaluate((el) => getComputedStyle(el).display)).toBe("flex");
  await expect(summary.locator("svg")).toBeVisible();
  await summary.click();
  const menu = page.locator("details[open]").getByRole("navigation", { name: "Documentation" });
  await menu.getByRole("link", { name: "Tasks" }).click();
  await expect(page).toHaveURL(/\/docs\/tasks$/);
  await expect(page.locator("details[open]")).toHaveCount(0);
  await expect(page.locator("details summary").filter({ hasText: "Docs menu" })).toContainText("Tasks");
});

test("the architecture diagram fits a 375 px screen without scrolling sideways", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/docs/getting-started");
  const diagram = page.locator(".code-block pre").filter({ hasText: "Orchestrator" });
  await expect(diagram).toBeVisible();
  const { scroll, client } = await diagram.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  expect(scroll).toBeLessThanOrEqual(client);
});

test("the docs search button shows no keyboard hint on a touch screen", async ({ page }) => {
  await page.goto("/docs/agents");
  await expect(page.getByRole("button", { name: /Search docs/ }).first()).toBeVisible();
  // The hint is in the markup, hidden until the page knows the platform; a touch screen never shows it.
  for (const hint of await page.getByTestId("search-shortcut").all()) await expect(hint).toBeHidden();
});

test("the API reference leads with Licensing and fits a 375 px screen", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/api-reference");
  const sections = page.getByRole("main").getByRole("heading", { level: 2 });
  await expect(sections.first()).toHaveText("Licensing");
  await expect(sections.last()).toHaveText("Service");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
