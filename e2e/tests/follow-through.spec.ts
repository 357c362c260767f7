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
