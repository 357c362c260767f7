import { expect, test } from "./fixtures";

test("Stay Updated subscribes, and the unsubscribe page explains a bad link", async ({ page }) => {
  await page.goto("/blog");
  const box = page.getByRole("region", { name: "Stay Updated" });
  await box.getByLabel("Email address").fill(`reader-${Date.now()}@example.com`);
  await box.getByRole("button", { name: "Subscribe" }).click();
  await expect(box.getByRole("status")).toContainText("confirm your subscription");

  await page.goto("/newsletter/unsubscribe?token=00000000-0000-0000-0000-000000000000.forged");
  await expect(page.getByText("This unsubscribe link is invalid or has expired.")).toBeVisible();
});

test("the confirmation mail's link confirms the subscription on /newsletter/confirm (with a press of the button)", async ({
  page,
  request,
}) => {
  const email = `confirm-${Date.now()}@example.com`;
  await page.goto("/blog");
  const box = page.getByRole("region", { name: "Stay Updated" });
  await box.getByLabel("Email address").fill(email);
  await box.getByRole("button", { name: "Subscribe" }).click();
  await expect(box.getByRole("status")).toContainText("confirm");

  // No SMTP_URL in the e2e server: the outbox keeps the mail at /dev/mail.
  let link = "";
  await expect
    .poll(
      async () => {
        const html = await (await request.get("/dev/mail")).text();
        const mail = html.split("<article>").find((article) => article.includes(`To: ${email}`));
        link = /\/newsletter\/confirm\?token=[\w.%-]+/.exec(mail ?? "")?.[0] ?? "";
        return link;
      },
      { timeout: 15_000 },
    )
    .not.toBe("");

  await page.goto(link);
  await expect(page.getByRole("heading", { level: 1, name: "Confirm your subscription" })).toBeVisible();
  await page.getByRole("button", { name: "Confirm subscription" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "You're subscribed." })).toBeVisible();

  await page.reload();
  await page.getByRole("button", { name: "Confirm subscription" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "You're already subscribed." })).toBeVisible();

  await page.goto("/newsletter/confirm?token=00000000-0000-0000-0000-000000000000.1.forged");
  await page.getByRole("button", { name: "Confirm subscription" }).click();
  await expect(page.getByRole("alert")).toHaveText("This confirmation link is invalid or has expired.");
});
