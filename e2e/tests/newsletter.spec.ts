import { expect, test } from "./fixtures";

test("Stay Updated subscribes, and the unsubscribe page explains a bad link", async ({ page }) => {
  await page.goto("/blog");
  const box = page.getByRole("region", { name: "Stay Updated" });
  await box.getByLabel("Email address").fill(`reader-${Date.now()}@example.com`);
  await box.getByRole("button", { name: "Subscribe" }).click();
  await expect(box.getByRole("status")).toContainText("subscribed");

  await page.goto("/newsletter/unsubscribe?token=00000000-0000-0000-0000-000000000000.forged");
  await expect(page.getByText("This unsubscribe link is invalid or has expired.")).toBeVisible();
});
