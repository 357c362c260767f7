import { expect, test } from "./fixtures";
import { createFreeLicense, desktopCli, signInToDashboard } from "./portal";

/** Plays the desktop app on one machine, a fresh state file each run. */
const cli = desktopCli({ rememberMachines: false });

test("portal: a full license names the refused device, frees a slot, and rotates its key", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000); // eight CLI runs, each a Node start
  await signInToDashboard(page, `seats-${Date.now()}@example.com`, "Ada Lovelace");
  const { licenseKey } = await createFreeLicense(page);

  // Three machines fill the free tier; a fourth is refused.
  for (const machine of ["desktop-ada-1", "desktop-ada-2", "desktop-ada-3"]) {
    expect(cli(baseURL!, machine, ["activate", licenseKey]).code).toBe(0);
  }
  const refused = cli(baseURL!, "desktop-ada-4", ["activate", licenseKey, "--name", "Ada's new desktop"]);
  expect(refused.code).toBe(1);
  expect(refused.out).toContain("TOO_MANY_MACHINES");

  await page.getByRole("button", { name: /Refresh/ }).click();
  const notice = page.getByRole("status").filter({ hasText: "This license is full" });
  await expect(notice).toContainText("Ada's new desktop");
  await expect(notice).toContainText("every slot is taken");
  await expect(page.getByText("3/3")).toBeVisible();
  await expect(page.getByTestId("seat-rule")).toContainText("A device that sends no heartbeat for 20 minutes");
  await expect(page.getByText(/Last heartbeat (just now|\d+ minutes? ago)/).first()).toBeVisible();

  // Dismiss: the notice goes (the server forgets the refusal).
  await notice.getByRole("button", { name: "Dismiss" }).click();
  await expect(notice).toBeHidden();

  // Refused again; Free a slot puts focus on a remove button; removing one lets the refused device in.
  expect(cli(baseURL!, "desktop-ada-4", ["activate", licenseKey, "--name", "Ada's new desktop"]).code).toBe(1);
  await page.getByRole("button", { name: /Refresh/ }).click();
  await notice.getByRole("button", { name: "Free a slot" }).click();
  await expect(page.getByText(/Remove a device you no longer use/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Remove device desktop-ada-1" })).toBeFocused();
  await page.keyboard.press("Enter");
  await page
    .getByRole("dialog", { name: "Remove this device?" })
    .getByRole("button", { name: "Remove device" })
    .click();
  await expect(page.getByText(/Device removed/)).toBeVisible();
  await expect(page.getByText("2/3")).toBeVisible();
  // A slot is free: the card no longer calls the license full, even after a reload, and says who gets the slot.
  const slotFree = page.getByRole("status").filter({ hasText: "A slot is free" });
  await expect(slotFree).toContainText("It gets the free slot the next time it starts.");
  await expect(notice).toBeHidden();
  await page.reload();
  await expect(page.getByText("2/3")).toBeVisible();
  await expect(slotFree).toContainText("Ada's new desktop");
  await expect(notice).toBeHidden();
  // The refused device is in the license's analytics with its failed attempts.
  await page.getByRole("button", { name: /Show Analytics/ }).click();
  const refusedDevices = page.getByRole("list", { name: "Refused devices" });
  await expect(refusedDevices).toContainText("Ada's new desktop");
  await expect(refusedDevices).toContainText(/[1-9]\d* failed/);
  expect(cli(baseURL!, "desktop-ada-4", ["activate", licenseKey]).code).toBe(0);
  await page.getByRole("button", { name: /Refresh/ }).click();
  await expect(page.getByText("3/3")).toBeVisible();
  await expect(notice, "an activation clears the notice").toBeHidden();
  await expect(slotFree).toBeHidden();

  // Rotate the key: confirm, see the new key once, the old one works for the grace period.
  await page.getByRole("button", { name: "Rotate key" }).click();
  const confirm = page.getByRole("dialog", { name: "Rotate license key?" });
  await expect(confirm).toContainText("the old key keeps working for 1 hour, then stops");
  await confirm.getByRole("button", { name: "Rotate key" }).click();
  const done = page.getByRole("dialog", { name: "Your new license key" });
  const newKey = (await done.getByTestId("license-key").textContent())!.trim();
  expect(newKey).toMatch(/^FLOT(-[0-9A-Z]{5}){5}$/);
  expect(newKey).not.toBe(licenseKey);
  await expect(done).toContainText(/The old key stops working at (?:[A-Z][a-z]{2} \d{1,2}, )?\d{1,2}:\d{2} (AM|PM)/);
  await done.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("license-key").first()).toHaveText(newKey);
  await expect(page.getByTestId("previous-key")).toContainText(
    /Previous key works until (?:[A-Z][a-z]{2} \d{1,2}, )?\d{1,2}:\d{2} (AM|PM)/,
  );

  // Within the grace both keys validate, and the machine keeps its slot with the new key.
  expect(cli(baseURL!, "desktop-ada-2", ["activate", licenseKey]).code).toBe(0);
  expect(cli(baseURL!, "desktop-ada-2", ["activate", newKey]).code).toBe(0);
  await page.getByRole("button", { name: /Refresh/ }).click();
  await expect(page.getByText("3/3")).toBeVisible();

  // The analytics survived the rotation: the devices' uses before it are still counted under the new key.
  const analyticsToggle = page.getByRole("button", { name: /(Show|Hide) Analytics/ });
  if ((await analyticsToggle.textContent())?.includes("Show")) await analyticsToggle.click();
  const total = page.getByText("Total Validations").locator("..").locator("dd");
  await expect(total).toHaveText(/^[1-9]/);
  const desk2 = page
    .getByRole("list", { name: "Authorized devices" })
    .getByRole("listitem")
    .filter({ hasText: "desktop-ada-2" });
  await expect(desk2).toContainText(/[1-9]\d* uses?/);
  await expect(desk2).not.toContainText(/(?<!\d)0 uses/);
});

test("portal: a leaked key's devices holding license files are revoked, and the panel says until when their files run", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const machines = desktopCli({ rememberMachines: true });
  await signInToDashboard(page, `leak-${Date.now()}@example.com`, "Grace Hopper");
  const { licenseKey } = await createFreeLicense(page);
  expect(machines(baseURL!, "grace-desk", ["activate", licenseKey]).code).toBe(0);

  // License files are off until the owner turns them on: a key alone checks out nothing.
  expect(machines(baseURL!, "thief-laptop", ["activate", licenseKey]).code).toBe(0);
  const refused = machines(baseURL!, "thief-laptop", ["checkout", "--ttl", "90d"]);
  expect(refused.code).not.toBe(0);
  expect(refused.out).toContain("License files are turned off");
  const files = page.getByRole("switch", { name: "License files for offline devices" });
  await expect(files).toHaveAttribute("aria-checked", "false");
  await files.click();
  await expect(files).toHaveAttribute("aria-checked", "true");
  expect(machines(baseURL!, "thief-laptop", ["checkout", "--ttl", "90d"]).code).toBe(0);

  // The panel shows the file; its device is revoked (not removed) after a confirmation that says what that means.
  await page.getByRole("button", { name: /Refresh/ }).click();
  const row = page
    .getByRole("list", { name: "Authorized devices" })
    .getByRole("listitem")
    .filter({ hasText: "thief-laptop" });
  await expect(row).toContainText("License file until");
  await row.getByRole("button", { name: "Revoke device thief-laptop" }).click();
  const dialog = page.getByRole("dialog", { name: "Revoke this device?" });
  await expect(dialog).toContainText("The file cannot be called back");
  await dialog.getByRole("button", { name: "Revoke device" }).click();
  await expect(page.getByText(/Device thief-laptop revoked\. Its slot is free now/)).toContainText(
    /its license file may keep working offline until [A-Z][a-z]{2} \d{1,2}, \d{4}/,
  );
  await expect(page.getByText("1/3")).toBeVisible();
  const removed = page.getByRole("region", { name: "Removed devices" });
  await expect(removed).toContainText("Revoked: its license file may still work offline on that machine until");

  // The revoked machine is barred; the owner's own new machine takes the slot.
  expect(machines(baseURL!, "thief-laptop", ["heartbeat", "--json"]).out).toContain("MACHINE_REMOVED");
  expect(machines(baseURL!, "grace-laptop", ["activate", licenseKey]).code).toBe(0);
});
