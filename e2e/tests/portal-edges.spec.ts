/**
 * The portal at the edges of the happy path (issue 34, decision 0055): a double-click, a network that goes away, a
 * server that stops answering, a session that ends while the page is open. Each journey failed on the portal before
 * the shared handling (usePortalMutation, the portal's root and its session).
 */
import { expect, type Page, test } from "./fixtures";
import { createFreeLicense, signInToDashboard } from "./portal";

const storedToken = (page: Page) => page.evaluate(() => localStorage.getItem("auth_token"));

test("a double-click on Create Free License creates one license: the dialog closes on it, no failure is shown", async ({
  page,
}) => {
  await signInToDashboard(page, `double-${Date.now()}@example.com`, "Ada Lovelace");
  await page.getByRole("button", { name: "Create Free License" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create Your License" });
  await dialog.getByRole("button", { name: "Create Free License" }).dblclick();

  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("license-key")).toHaveText(/^FLOT(-[0-9A-Z]{5}){5}$/);
  await expect(page.getByRole("alert")).toHaveCount(0);
  const token = await storedToken(page);
  const dashboard = await page.request.get("/api/customer/dashboard", {
    headers: { authorization: `Bearer ${token}` },
  });
  expect((await dashboard.json()).data.licenses).toHaveLength(1);
});

test("offline shows in the badge and a notice; a change fails at once and is not applied when the network returns", async ({
  page,
  context,
}) => {
  await signInToDashboard(page, `offline-${Date.now()}@example.com`, "Grace Hopper");
  await createFreeLicense(page);
  const live = page.getByRole("status").filter({ hasText: /^Live$/ });
  await expect(live).toBeVisible();
  const fileSwitch = page.getByRole("switch", { name: "License files for offline devices" });
  await expect(fileSwitch).toHaveAttribute("aria-checked", "false");

  await context.setOffline(true);
  await expect(page.getByRole("status").filter({ hasText: "Offline" })).toBeVisible();
  await expect(live).toBeHidden();
  await expect(page.getByTestId("connection-notice")).toContainText("Changes are paused until your connection returns");

  const tapped = Date.now();
  await fileSwitch.click();
  await expect(page.getByRole("alert").filter({ hasText: "You're offline" })).toBeVisible();
  expect(Date.now() - tapped).toBeLessThan(5_000); // at once, not after the client's attempts (a hang guard only)
  await expect(fileSwitch).toHaveAttribute("aria-checked", "false");

  await context.setOffline(false);
  // Back online, the stream reconnects and the dashboard re-reads: a change held back would be sent by now.
  await expect(live).toBeVisible();
  await expect(page.getByTestId("connection-notice")).toBeEmpty();
  await page.getByRole("button", { name: "Refresh dashboard" }).click();
  await expect(fileSwitch).toHaveAttribute("aria-checked", "false");
  const token = await storedToken(page);
  const dashboard = await page.request.get("/api/customer/dashboard", {
    headers: { authorization: `Bearer ${token}` },
  });
  expect((await dashboard.json()).data.licenses[0].offline_files_allowed).toBe(false);
});

test("a server that does not answer says so, and a change fails visibly instead of spinning", async ({ page }) => {
  await signInToDashboard(page, `unreachable-${Date.now()}@example.com`, "Alan Turing");
  await createFreeLicense(page);
  await expect(page.getByRole("status").filter({ hasText: /^Live$/ })).toBeVisible();

  // The service goes away (every API call is refused), the page stays.
  await page.route("**/api/**", (route) => route.abort("connectionrefused"));
  await page.getByRole("switch", { name: "License files for offline devices" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Failed to change the license-file setting" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Can't reach Flotilla" })).toBeVisible();
  await expect(page.getByTestId("connection-notice")).toContainText(
    "Changes are paused while the service doesn't answer",
  );

  await page.unroute("**/api/**");
  await expect(page.getByRole("status").filter({ hasText: /^Live$/ })).toBeVisible();
});

test("a session that ends while a dialog is open: the page says so, hides the account, and signs in back to it", async ({
  page,
}) => {
  await signInToDashboard(page, `ended-${Date.now()}@example.com`, "Katherine Johnson");
  await createFreeLicense(page);
  await expect(page.getByRole("status").filter({ hasText: /^Live$/ })).toBeVisible();
  await page.getByRole("button", { name: "Rotate key", exact: true }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();

  // Signed out everywhere from another device: the live stream hears it and the portal asks the server why.
  const token = await storedToken(page);
  const ended = await page.request.post("/api/auth/logout-all", { headers: { authorization: `Bearer ${token}` } });
  expect(ended.ok()).toBe(true);

  await expect(page.getByRole("heading", { name: "You've been signed out" })).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("license-key")).toHaveCount(0);
  await expect(page.getByRole("status").filter({ hasText: /^Live$/ })).toHaveCount(0);
  expect(await storedToken(page)).toBeNull();

  await page.getByRole("link", { name: "Sign in again" }).click();
  await expect(page).toHaveURL(/\/login\?redirect=%2Fdashboard$/);
});
