import { expect, test } from "./fixtures";
import { type OwnServer, startOwnServer } from "./own-server";

let server: OwnServer;
// biome-ignore lint/correctness/noEmptyPattern: Playwright requires a destructuring pattern for the fixtures argument.
test.beforeAll(async ({}, testInfo) => {
  server = await startOwnServer(3400 + testInfo.workerIndex + (testInfo.project.name === "mobile" ? 50 : 0));
});
test.afterAll(async () => {
  await server.stop();
  server.cleanup();
});

test("early access: empty submit, fix the errors, You're In, reset on reopen, stored in the database", async ({
  page,
}) => {
  // Time runs as usual, but the form's 300 ms reset after closing can be skipped rather than waited for.
  await page.clock.install();
  await page.goto(`${server.baseURL}/`);
  const opener = page.getByRole("button", { name: "Get Early Access" }).first();
  await opener.click();
  const dialog = page.getByRole("dialog", { name: "Get Early Access" });
  await expect(dialog).toBeVisible();

  await dialog.getByRole("button", { name: "Secure My Spot" }).click();
  const errors = dialog.getByTestId("signup-errors");
  await expect(errors).toContainText("Email is required");
  await expect(errors).toContainText("Name is required");
  await expect(errors).toContainText("Please select your role");
  await expect(errors).toContainText("Please select your AI experience level");
  await expect(errors).toContainText("Please select your preferred platform");

  await dialog.getByLabel("Email").fill("not-an-email");
  await expect(errors).not.toContainText("Email is required");
  await dialog.getByRole("button", { name: "Secure My Spot" }).click();
  await expect(errors).toContainText("Please enter a valid email address");

  await dialog.getByLabel("Email").fill("E2E.Person@Example.com");
  await dialog.getByLabel("Name").fill("E2E Person");
  await dialog.getByLabel("Company").fill("Flotilla QA");
  await dialog.getByLabel("Role").selectOption("DevOps Engineer");
  await dialog.getByRole("radio", { name: /Intermediate/ }).check();
  await dialog.getByRole("radio", { name: /macOS Desktop/ }).check();
  await dialog.getByRole("checkbox", { name: "Git Integration" }).check();
  await dialog.getByRole("checkbox", { name: "Unified Memory" }).check();
  await expect(errors).toBeHidden();

  await dialog.getByRole("button", { name: "Secure My Spot" }).click();
  await expect(dialog.getByRole("button", { name: "Securing Your Spot..." })).toBeDisabled();
  await page.keyboard.press("Escape"); // blocked while submitting
  await expect(page.getByTestId("signup-success")).toBeVisible();
  await expect(page.getByTestId("signup-success")).toContainText("You're In");

  await page.getByTestId("signup-success").getByRole("button", { name: "Close" }).click();
  await expect(page.getByRole("dialog")).toBeHidden();
  await expect(opener).toBeFocused();
  await page.clock.runFor(400);
  await opener.click();
  await expect(page.getByRole("dialog", { name: "Get Early Access" }).getByLabel("Email")).toHaveValue("");

  // The answers are in the database, as the spec stores them.
  await server.stop();
  const exported = server.admin("signups", "export", "--format", "json");
  expect(exported.status, exported.stderr).toBe(0);
  const rows = JSON.parse(exported.stdout) as Record<string, unknown>[];
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({
    email: "E2E.Person@Example.com",
    name: "E2E Person",
    company: "Flotilla QA",
    role: "DevOps Engineer",
    ai_experience: "Intermediate - Some experience with AI in development",
    platform: "macOS Desktop - Native app for macOS (beta now)",
    interests: "Unified Memory, Git Integration",
    newsletter: true,
  });
  const subscribers = JSON.parse(server.admin("subscribers", "export", "--format", "json").stdout);
  expect(subscribers[0]).toMatchObject({ email: "E2E.Person@Example.com", source: "signup" });
  expect(subscribers[0].unsubscribe_url).toMatch(/\/newsletter\/unsubscribe\?token=/);
});
