import { expect, test, waitingForPageReady } from "./fixtures";
import { createFreeLicense, desktopCli, signInToDashboard } from "./portal";

/** Plays the desktop app; each machine keeps its own state file, as separate computers would. */
const cli = desktopCli({ rememberMachines: true });

function activateWithCli(server: string, licenseKey: string, machineId: string): string {
  return cli(server, machineId, ["activate", licenseKey]).out;
}

test("portal: create a license, activate two machines with the CLI, analytics, remove a device", async ({
  page,
  request,
  baseURL,
}) => {
  test.slow(); // the whole journey, CLI runs included: 21 s on a quiet machine
  await signInToDashboard(page, `portal-${Date.now()}@example.com`, "Grace Hopper");
  await expect(page.getByRole("heading", { name: "Customer Dashboard" })).toBeVisible();
  await expect(page.getByText("No licenses yet")).toBeVisible();
  await expect(page.getByText("Get started by purchasing your first license")).toBeVisible();

  // Create Your License: free is available, plus is Coming Soon.
  await page.getByRole("button", { name: "Create Free License" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create Your License" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: /Coming Soon/ })).toBeDisabled();
  await dialog.getByRole("button", { name: "Create Free License" }).click();
  await expect(dialog).toBeHidden();

  const keyText = page.getByText(/^FLOT(-[0-9A-Z]{5}){5}$/);
  await expect(keyText).toBeVisible();
  const licenseKey = (await keyText.textContent())!.trim();
  const badge = page.getByText(/^Tier: free$/i).first();
  await expect(badge).toBeVisible();
  await expect(badge).toHaveCSS("text-transform", "uppercase");
  await expect(page.getByText("Not activated")).toBeVisible();
  await expect(page.getByText("No devices registered yet")).toBeVisible();
  // A new customer's next step: the macOS beta, where the key goes, the activation guide.
  const nextStep = page.getByRole("region", { name: /Next step/ });
  await expect(nextStep).toContainText("Get the macOS beta");
  await expect(nextStep).toContainText("Paste your license key");
  await expect(nextStep.getByRole("link", { name: /activation guide/ })).toHaveAttribute(
    "href",
    "/docs/pricing#activating-the-desktop-app",
  );

  // One license per account: a second cannot be asked for (the server refuses one with the spec's message anyway).
  for (const name of ["Create License", "Create New License"]) {
    const create = page.getByRole("button", { name });
    await expect(create).toBeDisabled();
    await expect(create).toHaveAccessibleDescription("One license per account");
  }

  // The desktop app (played by the CLI) activates on two machines, then reports usage.
  expect(activateWithCli(baseURL!, licenseKey, "desktop-grace-laptop")).toContain("Activated");
  expect(activateWithCli(baseURL!, licenseKey, "server-prod-ci")).toContain("Activated");
  await request.post("/api/license/usage", {
    data: { license_key: licenseKey, machine_id: "server-prod-ci", executions: 25, feature: "code-review" },
  });

  await page.getByRole("button", { name: /Refresh/ }).click();
  await expect(page.getByText("desktop-grace-laptop").first()).toBeVisible();
  await expect(nextStep, "the next step goes away once a device is active").toBeHidden();
  await expect(page.getByText("server-prod-ci")).toBeVisible();
  await expect(page.getByText("2/3")).toBeVisible();
  await expect(page.getByText(/You can add 1 more device\b/)).toBeVisible();
  await expect(page.getByText("Code Review")).toBeVisible();

  // The first machine is the primary one.
  const row = (id: string, other: string) =>
    page.getByRole("listitem").filter({ hasText: id }).filter({ hasNotText: other });
  await expect(row("desktop-grace-laptop", "server-prod-ci").getByText("Primary")).toBeVisible();
  await expect(row("server-prod-ci", "desktop-grace-laptop").getByText("Primary")).toHaveCount(0);

  await page.getByRole("button", { name: /Show Analytics/ }).click();
  const analytics = page.getByRole("region", { name: "Usage Analytics (Last 30 Days)" });
  await expect(analytics.or(page.getByText("Usage Analytics (Last 30 Days)"))).toBeVisible();
  // Two activations, both successful, two active devices.
  const totals = page.getByText("Total Validations").locator("..");
  await expect(totals).toContainText("2");

  // Remove the server; the last device cannot be removed.
  await page.getByRole("button", { name: "Remove device server-prod-ci" }).click();
  const confirm = page.getByRole("dialog", { name: "Remove this device?" });
  await expect(confirm).toContainText("Its slot is freed at once");
  await confirm.getByRole("button", { name: "Remove device" }).click();
  const removed = page.getByText(/Device removed/);
  await expect(removed).toBeVisible();
  const authorized = page.getByRole("list", { name: "Authorized devices" });
  await expect(authorized.getByText("server-prod-ci")).toBeHidden();
  await expect(removed).toBeHidden({ timeout: 10_000 }); // the success message goes after 3 s
  await expect(page.getByText("1/3")).toBeVisible();
  const last = page.getByRole("button", { name: "Remove device desktop-grace-laptop" });
  await expect(last).toBeDisabled();
  await expect(last).toHaveAttribute("title", "Cannot remove the last device");

  // The removed machine learns it at its next check and loses its offline token; it does not come back.
  const afterRemoval = cli(baseURL!, "server-prod-ci", ["status"]);
  expect(afterRemoval.code).toBe(1);
  expect(afterRemoval.out).toContain("MACHINE_REMOVED");
  expect(cli(baseURL!, "server-prod-ci", ["verify"]).code).toBe(1);
  const removedList = page.getByRole("region", { name: "Removed devices" });
  await expect(removedList.getByText("server-prod-ci")).toBeVisible();

  // Its owner allows it again: the next time the app runs it is activated again.
  await removedList.getByRole("button", { name: "Allow device server-prod-ci again" }).click();
  await expect(page.getByText(/Device allowed again/)).toBeVisible();
  await expect(removedList).toBeHidden();
  expect(cli(baseURL!, "server-prod-ci", ["status"]).code).toBe(0);
  await page.getByRole("button", { name: /Refresh/ }).click();
  await expect(page.getByText("2/3")).toBeVisible();
});

test("another customer cannot see or change someone else's license", async ({ page, request }) => {
  await signInToDashboard(page, `owner-${Date.now()}@example.com`, "Owner");
  const { licenseKey } = await createFreeLicense(page);
  await request.post("/api/license/validate", { data: { license_key: licenseKey, machine_id: "desktop-owner" } });

  const intruder = await page.context().browser()!.newContext();
  const other = waitingForPageReady(await intruder.newPage());
  await signInToDashboard(other, `intruder-${Date.now()}@example.com`, "Intruder");
  const token = await other.evaluate(() => localStorage.getItem("auth_token"));
  for (const [method, url] of [
    ["GET", `/api/license/machines/${licenseKey}`],
    ["GET", `/api/license/machines/${licenseKey}/analytics?days=30`],
    ["DELETE", `/api/license/machines/${licenseKey}/desktop-owner`],
  ] as const) {
    const response = await request.fetch(url, { method, headers: { authorization: `Bearer ${token}` } });
    expect(response.status()).toBe(404);
    expect(await response.text()).not.toContain("desktop-owner");
  }
  await intruder.close();
});
