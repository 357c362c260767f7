import { expect, type Locator, type Page, test } from "./fixtures";

/**
 * Keyboard-only journeys: no mouse, only Tab / Shift+Tab / Enter / Space / Escape / arrows. Every element the
 * journey moves focus to must show where focus is: a visible outline, or a box-shadow ring that only focus adds.
 */

interface FocusState {
  /** e.g. `button "Get Early Access"`. */
  description: string;
  focusVisible: boolean;
  outline: string;
  boxShadow: string;
  indicated: boolean;
}

/** What has focus now and whether its focus indicator shows (computed style, compared with an unfocused twin). */
function readFocus(page: Page): Promise<FocusState | null> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body || element === document.documentElement) return null;
    const style = getComputedStyle(element);
    const transparent = (color: string) => color === "transparent" || /rgba\(.*,\s*0\)$/.test(color);
    const outlined =
      style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0 && !transparent(style.outlineColor);
    // A box-shadow counts only when focus adds it: buttons may carry a resting shadow that is no indicator.
    const twin = element.cloneNode(false) as HTMLElement;
    // No id or name: a checked radio twin with the same name would uncheck the real one.
    twin.removeAttribute("id");
    twin.removeAttribute("name");
    twin.setAttribute("aria-hidden", "true");
    element.after(twin);
    const restingShadow = getComputedStyle(twin).boxShadow;
    twin.remove();
    const ringed = style.boxShadow !== "none" && style.boxShadow !== restingShadow;
    const label =
      element.getAttribute("aria-label") ??
      (element as HTMLInputElement).labels?.[0]?.textContent ??
      element.textContent ??
      "";
    return {
      description: `${element.tagName.toLowerCase()}${element.getAttribute("type") ? `[${element.getAttribute("type")}]` : ""} "${label.trim().replace(/\s+/g, " ").slice(0, 50)}"`,
      focusVisible: element.matches(":focus-visible"),
      outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
      boxShadow: style.boxShadow,
      indicated: outlined || ringed,
    };
  });
}

/** Focus is on an element (not lost to <body>) and visibly indicated. */
async function expectFocusShown(page: Page): Promise<string> {
  const state = await readFocus(page);
  expect(state, "focus was lost (document.activeElement is <body>)").not.toBeNull();
  expect(
    state!.focusVisible && state!.indicated,
    `no visible focus indicator on ${state!.description}: :focus-visible ${state!.focusVisible}, outline ${state!.outline}, box-shadow ${state!.boxShadow}`,
  ).toBe(true);
  return state!.description;
}

/** Presses a key and checks the focus indicator of wherever focus lands. */
// Every key press is followed by a check of the focus indicator: a journey is a hundred round trips to the
// browser, which on a loaded 2-core CI machine can pass the default 30 s.
test.describe.configure({ timeout: 90_000 });

async function press(page: Page, key: string): Promise<string> {
  await page.keyboard.press(key);
  return expectFocusShown(page);
}

/** Tabs (or Shift+Tabs) until `target` has focus, checking the focus indicator at every stop. */
async function tabTo(page: Page, target: Locator, { backwards = false, max = 40 } = {}) {
  await expect(target).toBeVisible();
  const stops: string[] = [];
  for (let i = 0; i < max; i++) {
    stops.push(await press(page, backwards ? "Shift+Tab" : "Tab"));
    if (await target.evaluate((element) => element === document.activeElement)) return;
  }
  throw new Error(`${target} was not reached in ${max} presses. Focus went through: ${stops.join(" → ")}`);
}

async function signInByKeyboard(page: Page, email: string, name: string) {
  await page.goto("/login");
  await tabTo(page, page.getByRole("button", { name: "Continue with Google" }));
  await page.keyboard.press("Enter");
  await expect(page.getByText("Development sign-in")).toBeVisible();
  const emailField = page.getByLabel("Email");
  await tabTo(page, emailField);
  await page.keyboard.type(email);
  await press(page, "Tab");
  await expect(page.getByLabel("Name")).toBeFocused();
  await page.keyboard.type(name);
  await press(page, "Tab");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole("heading", { name: "Customer Dashboard" })).toBeVisible();
}

test("join early access with the keyboard only", async ({ page }) => {
  await page.goto("/");
  await tabTo(page, page.getByRole("link", { name: "Skip to content" }));
  const opener = page.getByRole("main").getByRole("button", { name: "Get Early Access" }).first();
  await tabTo(page, opener);
  await page.keyboard.press("Enter");

  const dialog = page.getByRole("dialog", { name: "Get Early Access" });
  await expect(dialog.getByLabel("Email")).toBeFocused();
  await expectFocusShown(page);
  // Backwards from the first field: the dialog's Close button, then forwards again.
  await press(page, "Shift+Tab");
  await expect(dialog.getByRole("button", { name: "Close" })).toBeFocused();
  await press(page, "Tab");
  await expect(dialog.getByLabel("Email")).toBeFocused();
  await page.keyboard.type(`keyboard-${Date.now()}@example.com`);
  await press(page, "Tab");
  await expect(dialog.getByLabel("Name")).toBeFocused();
  await page.keyboard.type("Kay Board");
  await press(page, "Tab");
  await expect(dialog.getByLabel("Company")).toBeFocused();
  await page.keyboard.type("Tab Stops Ltd");

  // Role: a closed <select> changes with the arrow keys.
  await press(page, "Tab");
  const role = dialog.getByLabel("Role");
  await expect(role).toBeFocused();
  for (let i = 0; i < 5; i++) await press(page, "ArrowDown");
  await expect(role).toHaveValue("DevOps Engineer");

  // Radio groups: Tab enters the group, the arrows choose.
  await press(page, "Tab");
  await expect(dialog.getByRole("radio", { name: /^Beginner/ })).toBeFocused();
  await press(page, "ArrowDown");
  await expect(dialog.getByRole("radio", { name: /^Intermediate/ })).toBeChecked();
  await press(page, "Tab");
  await expect(dialog.getByRole("radio", { name: /^Web Application/ })).toBeFocused();
  await press(page, "ArrowDown");
  await press(page, "ArrowDown");
  const macos = dialog.getByRole("radio", { name: /^macOS Desktop/ });
  await expect(macos).toBeChecked();
  await expect(macos).toBeFocused();

  // Check boxes: Space toggles.
  const memory = dialog.getByRole("checkbox", { name: "Unified Memory" });
  await tabTo(page, memory);
  await press(page, "Space");
  await expect(memory).toBeChecked();

  await tabTo(page, dialog.getByRole("button", { name: "Secure My Spot" }));
  await page.keyboard.press("Enter");

  const success = page.getByTestId("signup-success");
  await expect(success).toContainText("You're In");
  const close = success.getByRole("button", { name: "Close" });
  await expect(close).toBeFocused();
  await expectFocusShown(page);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("dialog")).toBeHidden();
  await expect(opener).toBeFocused();
  await expectFocusShown(page);
});

test("sign in with the keyboard only", async ({ page }) => {
  await signInByKeyboard(page, `keyboard-signin-${Date.now()}@example.com`, "Kay Signin");
  await expect(page.getByRole("main").getByText("Kay Signin")).toBeVisible();
  await expect(page.getByRole("banner").getByRole("button", { name: "Account menu for Kay Signin" })).toBeVisible();
});

test("create a license with the keyboard only", async ({ page }) => {
  await signInByKeyboard(page, `keyboard-license-${Date.now()}@example.com`, "Kay License");
  await expect(page.getByText("No licenses yet")).toBeVisible();
  const opener = page.getByRole("main").getByRole("button", { name: "Create Free License" });
  await tabTo(page, opener);
  await page.keyboard.press("Enter");

  const dialog = page.getByRole("dialog", { name: "Create Your License" });
  await expect(dialog).toBeVisible();
  const create = dialog.getByRole("button", { name: "Create Free License" });
  await tabTo(page, create);
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(page.getByText(/^FLOT(-[0-9A-Z]{5}){5}$/)).toBeVisible();

  // The opener went away with the empty state: focus moves to the new license's title, visibly.
  await expect(page.getByRole("main").getByRole("article").getByRole("heading", { level: 3 })).toBeFocused();
  await expectFocusShown(page);
  // From there, Tab carries on through the new license (its key's copy button comes next).
  await press(page, "Tab");
  await expect(page.getByRole("button", { name: "Copy license key" })).toBeFocused();
});

test("remove a device with the keyboard only", async ({ page, request }) => {
  await signInByKeyboard(page, `keyboard-devices-${Date.now()}@example.com`, "Kay Devices");
  const token = await page.evaluate(() => localStorage.getItem("auth_token"));
  const created = await request.post("/api/customer/licenses", {
    data: { tier: "free" },
    headers: { authorization: `Bearer ${token}` },
  });
  expect(created.ok()).toBe(true);
  const licenseKey = (await created.json()).data.license.license_key as string;
  for (const machineId of ["desktop-kay-laptop", "server-kay-ci"]) {
    const answer = await request.post("/api/license/validate", {
      data: { license_key: licenseKey, machine_id: machineId },
    });
    expect((await answer.json()).data.code).toBe("VALID");
  }

  await page.reload();
  await expect(page.getByText("2/3")).toBeVisible();
  const remove = page.getByRole("button", { name: "Remove device server-kay-ci" });
  await tabTo(page, remove, { max: 60 });
  await page.keyboard.press("Enter");
  // It asks first; the confirmation is reached and confirmed from the keyboard too.
  const confirm = page.getByRole("dialog", { name: "Remove this device?" });
  await expect(confirm).toContainText("server-kay-ci");
  await tabTo(page, confirm.getByRole("button", { name: "Remove device" }), { max: 5 });
  await page.keyboard.press("Enter");
  await expect(confirm).toBeHidden();
  await expect(page.getByRole("list", { name: "Authorized devices" }).getByText("server-kay-ci")).toBeHidden();
  await expect(page.getByText("1/3")).toBeVisible();
  await expect(page.getByText(/^Device removed/)).toBeVisible();
  // The button went with its row; focus moves to the device panel, not to the top of the page.
  await expect(page.getByRole("heading", { name: "Device Management" })).toBeFocused();
  await expectFocusShown(page);
  // The last device cannot be removed: its button is disabled, so Tab skips it.
  await expect(page.getByRole("button", { name: "Remove device desktop-kay-laptop" })).toBeDisabled();
});
