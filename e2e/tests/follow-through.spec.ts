/** Promises the site makes are ones the product keeps (issue 25): who operates it, and where the community is. */
import { COMMUNITY_URL, LEGAL_ENTITY } from "@flotilla/contracts/brand";
import { expect, test } from "./fixtures";

for (const path of ["/terms", "/privacy"]) {
  test(`${path} names the operator and where to write to it`, async ({ page }) => {
    await page.goto(path);
    const main = page.getByRole("main");
    await expect(main.getByText(LEGAL_ENTITY.name).first()).toBeVisible();
    await expect(main.getByText(LEGAL_ENTITY.postalAddress, { exact: false }).first()).toBeVisible();
  });
}

test("the Terms say which law governs them", async ({ page }) => {
  await page.goto("/terms");
  await expect(page.getByRole("main")).toContainText(`governed by ${LEGAL_ENTITY.governingLaw}`);
});

test("the community the site promises is a section that lists channels that exist", async ({ page }) => {
  await page.goto(COMMUNITY_URL);
  const section = page.locator("#community");
  await expect(section).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText("built in the open");
  await expect(page.getByRole("main").getByRole("link", { name: "blog" }).first()).toBeVisible();
});

test("the API reference renders its Markdown, says what each answer means, shows examples and keeps an index in view", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/api-reference");
  const main = page.getByRole("main");
  // No literal backticks: descriptions are rendered Markdown, with code spans.
  const validate = main.locator("#post-api-license-validate");
  await expect(validate.locator("code").filter({ hasText: "kid" })).toHaveCount(1);
  expect(
    await main.locator("article").evaluateAll((cards) => cards.some((card) => card.textContent!.includes("`"))),
  ).toBe(false);
  expect(await main.textContent()).not.toContain("Default Response");
  await expect(validate.getByRole("definition").first()).not.toBeEmpty();
  // A request and an answer example, generated from the document.
  await expect(validate.locator("pre")).toHaveCount(2);
  expect(JSON.parse((await validate.locator("pre").first().textContent())!)).toHaveProperty("license_key");
  // The index follows the reader down the page and leads to each operation.
  const index = page.getByRole("navigation", { name: "Operations" });
  await page.mouse.wheel(0, 20_000);
  await expect(index).toBeInViewport();
  await index.getByRole("link", { name: /POST\s*\/license\/validate$/ }).click();
  await expect(page).toHaveURL(/#post-api-license-validate$/);
  await expect(validate).toBeInViewport();
});

test("on a phone, every answer's meaning wraps inside its operation's card", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto("/api-reference");
  const overflowing = await page
    .getByRole("main")
    .locator("article dl")
    .evaluateAll((lists) =>
      lists.filter((list) => list.scrollWidth > list.clientWidth + 1).map((list) => list.closest("article")?.id ?? "?"),
    );
  expect(overflowing).toEqual([]);
});
