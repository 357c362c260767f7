import { expect, test } from "./fixtures";

/** Decision 0023: Inter is self-hosted, never blocks the first paint, and its arrival moves nothing. */
test("text is set in the self-hosted Inter, loaded from the site itself", async ({ page }) => {
  const fonts: string[] = [];
  page.on("request", (request) => request.resourceType() === "font" && fonts.push(request.url()));
  await page.goto("/");
  await page.evaluate(() => document.fonts.ready);
  expect(await page.evaluate(() => document.fonts.check('16px "Inter"'))).toBe(true);
  const face = await page.evaluate(() => {
    const inter = [...document.fonts].find((font) => font.family.replace(/"/g, "") === "Inter");
    return inter && { status: inter.status, display: inter.display, weight: inter.weight };
  });
  expect(face).toEqual({ status: "loaded", display: "swap", weight: "100 900" });
  expect(fonts).toHaveLength(1);
  expect(new URL(fonts[0]!).pathname).toMatch(/^\/assets\/inter-variable-subset-[\w-]+\.woff2$/);
});

/**
 * Decision 0064: the font is preloaded from the head, after the stylesheet. A preload is fetched at High priority,
 * where a font found in the stylesheet is fetched at the highest, render-blocking one: Lighthouse's simulated first
 * paint counted the font's 30 KB as in the first paint's way although `swap` never waits for it.
 */
test("the font is preloaded after the stylesheet, as the face the stylesheet declares, and fetched once", async ({
  page,
}) => {
  const fonts: string[] = [];
  page.on("request", (request) => request.resourceType() === "font" && fonts.push(new URL(request.url()).pathname));
  await page.goto("/docs/agents");
  await page.evaluate(() => document.fonts.ready);
  const head = await page.evaluate(() =>
    [...document.head.querySelectorAll("link[rel=stylesheet], style, link[rel=preload][as=font]")].map((element) => ({
      tag: element.tagName.toLowerCase(),
      rel: element.getAttribute("rel"),
      href: element.getAttribute("href"),
      type: element.getAttribute("type"),
      crossOrigin: element.getAttribute("crossorigin"),
    })),
  );
  const preloads = head.filter((element) => element.rel === "preload");
  expect(preloads).toHaveLength(1);
  expect(preloads[0]).toMatchObject({ type: "font/woff2", crossOrigin: "" });
  expect(preloads[0]!.href).toMatch(/^\/assets\/inter-variable-subset-[\w-]+\.woff2$/);
  // After the page's styles (a stylesheet or its inlined rules): the first paint's bytes are asked for first.
  expect(head.findIndex((element) => element.rel === "preload")).toBeGreaterThan(0);
  // The face the stylesheet declares is the file preloaded: one request, no second download in another mode.
  expect(fonts).toEqual([preloads[0]!.href]);
});

test("a slow font neither delays the first paint nor shifts the layout when it arrives", async ({ context }) => {
  // A page of its own: a held font also holds the load event, and with it hydration (decision 0011), which the
  // fixture's page would wait for.
  const page = await context.newPage();
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/*.woff2", async (route) => {
    await held;
    await route.continue();
  });
  await page.addInitScript(() => {
    (window as unknown as { shifts: number }).shifts = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[]) {
        (window as unknown as { shifts: number }).shifts += entry.value;
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/docs/getting-started", { waitUntil: "commit" });
  // The page is painted and readable while the font is still on its way.
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // The width the heading's text takes: the fallback is scaled to Inter's, so it must barely change.
  const textWidth = () =>
    page.getByRole("heading", { level: 1 }).evaluate((heading) => {
      const range = document.createRange();
      range.selectNodeContents(heading);
      return range.getBoundingClientRect().width;
    });
  const paragraph = page.locator("article p").nth(1);
  const before = { width: await textWidth(), box: await paragraph.boundingBox() };
  expect(await page.evaluate(() => document.fonts.check('16px "Inter"'))).toBe(false);
  release();
  await page.evaluate(() => document.fonts.ready);
  await expect.poll(() => page.evaluate(() => document.fonts.check('16px "Inter"'))).toBe(true);
  // The swap's relayout has been painted.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const after = { width: await textWidth(), box: await paragraph.boundingBox() };
  expect(Math.abs(after.width / before.width - 1), `${before.width} → ${after.width}`).toBeLessThan(0.03);
  expect(Math.abs(after.box!.height - before.box!.height)).toBeLessThanOrEqual(4);
  expect(Math.abs(after.box!.y - before.box!.y)).toBeLessThanOrEqual(4);
  expect(await page.evaluate(() => (window as unknown as { shifts: number }).shifts)).toBeLessThan(0.01);
});
