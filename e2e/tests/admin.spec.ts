/**
 * The operator's console against the real server. The shared e2e server makes E2E_ADMIN_EMAIL an admin through
 * ADMIN_EMAILS (playwright.config.ts); everyone else who signs in is an ordinary customer.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import { Webhook } from "standardwebhooks";
import { type Browser, expect, type Page, test, waitingForPageReady } from "./fixtures";
import { createFreeLicense } from "./portal";

/** Keep in step with ADMIN_EMAILS in playwright.config.ts. */
const E2E_ADMIN_EMAIL = "ops-admin@e2e.flotilla.test";
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** Signs in on the development issuer from wherever the page is (the sign-in page, or a page that sent it there). */
async function completeSignIn(page: Page, email: string, name: string) {
  await page.getByRole("button", { name: "Continue with Google" }).click();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function newPage(browser: Browser, theme?: "light" | "dark"): Promise<Page> {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = waitingForPageReady(await context.newPage());
  if (theme) await page.addInitScript((value) => localStorage.setItem("theme", value), theme);
  return page;
}

/** Opens /admin signed out: the console sends the visitor to sign in and brings them back. */
async function signInToConsole(page: Page, email = E2E_ADMIN_EMAIL) {
  await page.goto("/admin?tab=customers");
  await expect(page).toHaveURL(/\/login\?redirect=%2Fadmin%3Ftab%3Dcustomers$/);
  await completeSignIn(page, email, "Ops Admin");
  await expect(page).toHaveURL(/\/admin\?tab=customers$/);
}

async function axe(page: Page, where: string): Promise<string> {
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode(true).analyze();
  return violations
    .map(
      (v) =>
        `  ${where}: ${v.id} [${v.impact}] ${v.help}\n${v.nodes
          .slice(0, 4)
          .map((n) => `      ${n.target.join(" ")}`)
          .join("\n")}`,
    )
    .join("\n");
}

test("an admin finds a customer and suspends their license; the customer's dashboard shows it", async ({
  browser,
  request,
}) => {
  test.setTimeout(90_000);
  const stamp = Date.now();
  const customerEmail = `suspended-${stamp}@example.com`;

  // The customer signs in and creates a license.
  const customer = await newPage(browser);
  await customer.goto("/login");
  await completeSignIn(customer, customerEmail, "Customer To Suspend");
  await expect(customer).toHaveURL(/\/dashboard$/);
  const { licenseKey } = await createFreeLicense(customer);
  const validate = async () =>
    (
      await (
        await request.post("/api/license/validate", { data: { license_key: licenseKey, machine_id: `m-${stamp}` } })
      ).json()
    ).data.code as string;
  expect(await validate()).toBe("VALID");

  // The admin finds them and suspends the license, with a reason.
  const admin = await newPage(browser);
  await signInToConsole(admin);
  await expect(admin.getByRole("heading", { level: 1, name: "Operator console" })).toBeVisible();
  await admin.getByLabel("Email or name").fill(customerEmail);
  await admin.getByRole("button", { name: "Search" }).click();
  await admin.getByRole("link", { name: "Customer To Suspend" }).click();
  await expect(admin.getByRole("heading", { level: 2, name: "Customer To Suspend" })).toBeVisible();
  const license = admin.getByRole("region", { name: `License ${licenseKey}` });
  await expect(license.getByText("Active", { exact: true })).toBeVisible();
  await license.getByRole("button", { name: "Suspend" }).click();
  const dialog = admin.getByRole("dialog", { name: "Suspend license" });
  await expect(dialog.getByLabel("Reason")).toBeFocused();
  await dialog.getByRole("button", { name: "Suspend license" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Give a reason for the change.");
  await dialog.getByLabel("Reason").fill("Chargeback from the card issuer");
  await dialog.getByRole("button", { name: "Suspend license" }).click();
  await expect(dialog).toBeHidden();
  // Focus is back on the page, not lost (the dialog hands it back to what opened it or the page).
  await expect(admin.getByRole("status").filter({ hasText: "License suspended." })).toBeVisible();
  await expect(license.getByText("Suspended", { exact: true })).toBeVisible();
  const suspendedAt = Date.now();

  // The customer's dashboard shows it within a few seconds (the portal refreshes on demand), and so does the app.
  const card = customer.getByRole("article").filter({ hasText: licenseKey });
  await expect(async () => {
    await customer.getByRole("button", { name: "Refresh dashboard" }).click();
    await expect(card.getByText("Suspended")).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 5_000 });
  await expect.poll(validate, { timeout: 5_000, intervals: [250] }).toBe("SUSPENDED");
  expect(Date.now() - suspendedAt).toBeLessThan(6_000);

  // The audit log has it, with who and why.
  await admin.getByRole("link", { name: "Audit log" }).click();
  await admin.getByLabel("Event type").selectOption("license.status_changed");
  await admin.getByRole("button", { name: "Apply filters" }).click();
  const audit = admin.getByRole("table", { name: "Audit events" });
  await expect(audit.getByRole("row").filter({ hasText: "Chargeback from the card issuer" })).toContainText(
    E2E_ADMIN_EMAIL,
  );
  await customer.context().close();
  await admin.context().close();
});

test("an admin exports the filtered early-access signups as CSV", async ({ browser, request }) => {
  const stamp = Date.now();
  const base = {
    name: "Export Person",
    company: `Export Co ${stamp}`,
    ai_experience: "Advanced - Regularly use AI for complex tasks",
    platform: "Web Application - Use it from any browser",
    interests: "Task Automation",
    newsletter: false,
  };
  for (const [email, role] of [
    [`lead-${stamp}@example.com`, "Tech Lead"],
    [`founder-${stamp}@example.com`, "Founder/CEO"],
  ] as const) {
    const answer = await request.post("/api/signup", { data: { ...base, email, role } });
    expect(answer.ok()).toBe(true);
  }

  const admin = await newPage(browser);
  await admin.goto("/login?redirect=%2Fadmin");
  await completeSignIn(admin, E2E_ADMIN_EMAIL, "Ops Admin");
  await expect(admin.getByRole("heading", { level: 1, name: "Operator console" })).toBeVisible();
  await admin.getByLabel("Search").fill(String(stamp));
  await admin.getByLabel("Role").selectOption("Tech Lead");
  await admin.getByRole("button", { name: "Apply filters" }).click();
  const table = admin.getByRole("table", { name: "Signups" });
  await expect(table.getByText(`lead-${stamp}@example.com`)).toBeVisible();
  await expect(table.getByText(`founder-${stamp}@example.com`)).toHaveCount(0);
  await expect(admin.getByRole("img", { name: /Signups per day: 1 in all/ })).toBeVisible();

  const [download] = await Promise.all([
    admin.waitForEvent("download"),
    admin.getByRole("button", { name: "Export CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^signups-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, "utf8");
  const lines = csv.trim().split("\n");
  expect(lines[0]).toBe("email,name,company,role,ai_experience,platform,interests,newsletter,created_at");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(`lead-${stamp}@example.com`);
  expect(csv).not.toContain(`founder-${stamp}@example.com`);
  await admin.context().close();
});

test.describe("webhooks", () => {
  let receiver: Server;
  let received: { headers: Record<string, unknown>; body: string }[] = [];

  test.beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  });
  test.afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  test("an admin registers an endpoint, sees its secret once, and sends a test event that arrives", async ({
    browser,
  }) => {
    test.setTimeout(60_000);
    received = [];
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/${Date.now()}`;
    const admin = await newPage(browser);
    await admin.goto("/login?redirect=%2Fadmin%3Ftab%3Dwebhooks");
    await completeSignIn(admin, E2E_ADMIN_EMAIL, "Ops Admin");
    await expect(admin.getByRole("heading", { level: 2, name: "Webhooks" })).toBeVisible();

    await admin.getByRole("button", { name: "Register endpoint" }).click();
    const form = admin.getByRole("dialog", { name: "Register a webhook endpoint" });
    await form.getByLabel("URL").fill(url);
    await form.getByRole("checkbox", { name: /license\.status_changed/ }).check();
    await form.getByRole("button", { name: "Register" }).click();

    const secretDialog = admin.getByRole("dialog", { name: "Signing secret" });
    const secret = (await secretDialog.getByText(/^whsec_/).textContent())!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect(secretDialog.getByRole("button", { name: "Copy secret" })).toBeVisible();
    await secretDialog.getByRole("button", { name: "I've stored it" }).click();
    await expect(secretDialog).toBeHidden();
    // Shown once: not on the page, not after a reload, not in the API's answers.
    const card = admin.getByRole("region", { name: `Endpoint ${url}` });
    await expect(card).toBeVisible();
    await expect(admin.getByText(secret)).toHaveCount(0);
    const listed = await admin.evaluate(async () => {
      const token = localStorage.getItem("auth_token");
      return (await fetch("/api/admin/webhooks", { headers: { Authorization: `Bearer ${token}` } })).text();
    });
    expect(listed).toContain(url);
    expect(listed).not.toContain(secret);
    await admin.reload();
    await expect(card).toBeVisible();
    await expect(admin.getByText(secret)).toHaveCount(0);

    await card.getByRole("button", { name: "Send test event" }).click();
    await expect(card.getByRole("status")).toHaveText("Test event queued.");
    await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(0);
    expect(received[0]!.headers["flotilla-event-type"]).toBe("webhook.test");
    // The receiver verifies it with the Standard Webhooks reference library and the secret as the console showed it.
    expect(new Webhook(secret).verify(received[0]!.body, received[0]!.headers as Record<string, string>)).toMatchObject(
      { type: "webhook.test" },
    );

    await card.getByRole("button", { name: "Show deliveries" }).click();
    const log = card.getByRole("table", { name: "Deliveries" });
    await expect(async () => {
      await card.getByRole("button", { name: "Refresh" }).click();
      await expect(log.getByRole("row").filter({ hasText: "webhook.test" })).toContainText("204", { timeout: 1_000 });
    }).toPass({ timeout: 10_000 });

    await card.getByRole("button", { name: "Disable" }).click();
    await expect(card.getByText("Disabled", { exact: true })).toBeVisible();
    await admin.context().close();
  });
});

test("an admin grants the role from the console, the new admin gets in, and loses it when revoked", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  const email = `granted-${Date.now()}@example.com`;
  const admin = await newPage(browser);
  await signInToConsole(admin);
  await admin.getByRole("link", { name: "Admins" }).click();
  await admin.getByRole("button", { name: "Grant admin" }).click();
  const grant = admin.getByRole("dialog", { name: "Grant admin" });
  await grant.getByLabel("Email").fill(email);
  await grant.getByLabel("Reason").fill("joins support (e2e)");
  await grant.getByRole("button", { name: "Grant admin" }).click();
  await expect(admin.getByText(`${email} is now an admin.`)).toBeVisible();
  await expect(admin.getByRole("list", { name: "Admins" })).toContainText(email);

  const granted = await newPage(browser);
  await granted.goto("/login?redirect=%2Fadmin");
  await completeSignIn(granted, email, "Granted Admin");
  await expect(granted.getByRole("heading", { level: 1, name: "Operator console" })).toBeVisible();
  await expect(granted.getByText(/\(admin granted\)/)).toBeVisible();

  await admin.getByRole("button", { name: `Revoke admin for ${email}` }).click();
  const revoke = admin.getByRole("dialog", { name: "Revoke admin" });
  await revoke.getByLabel("Reason").fill("done (e2e)");
  await revoke.getByRole("button", { name: "Revoke admin" }).click();
  await expect(admin.getByText(`${email} is no longer an admin.`)).toBeVisible();
  await granted.reload();
  await expect(granted.getByRole("heading", { level: 1, name: "Not an admin" })).toBeVisible();

  // Both changes are in the audit log, with who made them and why.
  await admin.getByRole("link", { name: "Audit log" }).click();
  const audit = admin.getByRole("table", { name: "Audit events" });
  await expect(audit).toContainText("admin.granted");
  await expect(audit).toContainText("admin.revoked");
  await admin.context().close();
  await granted.context().close();
});

test("the console is an app of its own: its bar, no marketing navigation or footer; the account menu still works", async ({
  browser,
}) => {
  const page = await newPage(browser);
  await signInToConsole(page);
  await expect(page.getByRole("heading", { level: 1, name: "Operator console" })).toBeVisible();
  const bar = page.getByRole("banner");
  await expect(bar).toContainText("Console");
  await expect(bar.getByRole("link", { name: "Dashboard" })).toHaveAttribute("href", "/dashboard");
  await expect(page.getByRole("navigation", { name: "Main" })).toHaveCount(0);
  await expect(page.getByRole("contentinfo")).toHaveCount(0);
  await bar.getByRole("button", { name: /Account menu for Ops Admin/ }).click();
  await bar.getByRole("button", { name: "Logout" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.context().close();
});

/** Opens the top bar's account menu of `name` and returns the bar. */
async function openAccountMenu(page: Page, name: string) {
  const bar = page.getByRole("banner");
  await bar.getByRole("button", { name: new RegExp(`Account menu for ${name}`) }).click();
  return bar;
}

/** A customer's open menu: Dashboard is there, Console is not, anywhere on the page. */
async function expectNoConsoleLink(page: Page) {
  const bar = await openAccountMenu(page, "Menu Customer");
  await expect(bar.getByRole("link", { name: "Dashboard" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Console" })).toHaveCount(0);
}

test("an admin's account menu links the console, on a content page, on a phone's menu and in the portal; a customer's does not", async ({
  browser,
}) => {
  const page = await newPage(browser);
  await signInToConsole(page);
  // A prerendered content page: the account island keeps the Console item for an admin.
  await page.goto("/pricing");
  await (await openAccountMenu(page, "Ops Admin")).getByRole("link", { name: "Console" }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole("heading", { level: 1, name: "Operator console" })).toBeVisible();
  // The portal's own menu.
  await page.goto("/dashboard");
  const portalBar = await openAccountMenu(page, "Ops Admin");
  await expect(portalBar.getByRole("link", { name: "Console" })).toHaveAttribute("href", "/admin");
  // A phone: the mobile menu's signed-in foot.
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto("/pricing");
  await page.getByRole("button", { name: "Open menu" }).click();
  await expect(page.getByRole("navigation", { name: "Mobile" }).getByRole("link", { name: "Console" })).toBeVisible();
  await page.context().close();

  const customer = await newPage(browser);
  await customer.goto("/login");
  await completeSignIn(customer, `menu-customer-${Date.now()}@example.com`, "Menu Customer");
  await expect(customer).toHaveURL(/\/dashboard$/);
  await expectNoConsoleLink(customer);
  await customer.goto("/pricing");
  await expectNoConsoleLink(customer);
  await customer.context().close();
});

test("a signed-in customer who is not an admin is told so", async ({ browser }) => {
  const page = await newPage(browser);
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/login\?redirect=%2Fadmin$/);
  await completeSignIn(page, `not-admin-${Date.now()}@example.com`, "Not Admin");
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole("heading", { level: 1, name: "Not an admin" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to your dashboard" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Console sections" })).toHaveCount(0);
  await page.context().close();
});

for (const theme of ["light", "dark"] as const) {
  test(`axe, ${theme} theme: every console section, a customer, and the license, register and confirmation dialogs`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const findings: string[] = [];
    const page = await newPage(browser, theme);
    await page.goto("/login?redirect=%2Fadmin");
    await completeSignIn(page, E2E_ADMIN_EMAIL, "Ops Admin");
    await expect(page.getByRole("heading", { level: 1, name: "Operator console" })).toBeVisible();
    if (theme === "dark") await expect(page.locator("html")).toHaveClass(/\bdark\b/);

    for (const [tab, ready] of [
      [
        "Early access",
        () => page.getByRole("img", { name: /Signups per day/ }).or(page.getByText("No signups in this range.")),
      ],
      ["Newsletter", () => page.getByRole("heading", { level: 2, name: "Newsletter" })],
      ["Customers", () => page.getByRole("table", { name: "Customers" })],
      ["Audit log", () => page.getByRole("table", { name: "Audit events" })],
      ["Webhooks", () => page.getByRole("heading", { level: 2, name: "Webhooks" })],
      ["Admins", () => page.getByRole("list", { name: "Admins" })],
    ] as const) {
      await page.getByRole("link", { name: tab }).click();
      await expect(ready().first()).toBeVisible();
      await expect(page.getByRole("status").filter({ hasText: /Loading/ })).toHaveCount(0);
      findings.push(await axe(page, `${theme} /admin ${tab}`));
    }

    await page.getByRole("button", { name: "Grant admin" }).click();
    await expect(page.getByRole("dialog", { name: "Grant admin" }).getByLabel("Email")).toBeFocused();
    findings.push(await axe(page, `${theme} /admin grant dialog`));
    await page.keyboard.press("Escape");
    await page.getByRole("link", { name: "Webhooks" }).click();

    await page.getByRole("button", { name: "Register endpoint" }).click();
    await expect(page.getByRole("dialog", { name: "Register a webhook endpoint" })).toBeVisible();
    findings.push(await axe(page, `${theme} /admin register dialog`));
    await page.keyboard.press("Escape");

    // The admin is a customer too: with a license of their own, their page has every part (license, actions).
    await page.evaluate(async () => {
      const token = localStorage.getItem("auth_token");
      await fetch("/api/customer/licenses", {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ tier: "free" }),
      });
    });
    await page.getByRole("link", { name: "Customers" }).click();
    await page.getByLabel("Email or name").fill(E2E_ADMIN_EMAIL);
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("table", { name: "Customers" }).getByRole("link").first().click();
    await expect(page.getByRole("heading", { level: 3, name: "Live sessions" })).toBeVisible();
    await expect(page.getByRole("region", { name: /^License FLOT-/ })).toBeVisible();
    findings.push(await axe(page, `${theme} /admin customer`));
    await page.getByRole("button", { name: "Change tier or limit" }).click();
    await expect(
      page.getByRole("dialog", { name: "Change tier, device limit or license files" }).getByLabel("Reason"),
    ).toBeFocused();
    findings.push(await axe(page, `${theme} /admin license dialog`));
    await page.keyboard.press("Escape");
    await expect(page.getByRole("button", { name: "Change tier or limit" })).toBeFocused();
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await expect(page.getByRole("dialog", { name: "Sign out everywhere?" })).toBeVisible();
    findings.push(await axe(page, `${theme} /admin confirmation dialog`));
    await page.keyboard.press("Escape");

    const problems = findings.filter(Boolean);
    expect(problems, `axe found WCAG 2.1 AA violations:\n${problems.join("\n")}`).toEqual([]);
    await page.context().close();
  });
}

test("on a phone the console opens with its section's tab in view, the strip scrolled to it, not the page", async ({
  browser,
}) => {
  const page = await newPage(browser);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/admin?tab=webhooks");
  await expect(page).toHaveURL(/\/login\?redirect=/);
  await completeSignIn(page, E2E_ADMIN_EMAIL, "Ops Admin");
  await expect(page).toHaveURL(/\/admin\?tab=webhooks$/);
  const tab = page.getByRole("navigation", { name: "Console sections" }).getByRole("link", { name: "Webhooks" });
  await expect(tab).toHaveAttribute("aria-current", "page");
  await expect(tab).toBeInViewport({ ratio: 1 });
  expect(await page.evaluate(() => window.scrollX)).toBe(0);
  await page.context().close();
});

test("beta testers: an admin opens a wave and sees its funnel; the tab passes axe at 375 px in both themes", async ({
  browser,
}) => {
  test.setTimeout(90_000);
  for (const theme of ["light", "dark"] as const) {
    const page = await newPage(browser, theme);
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto("/admin?tab=beta");
    await completeSignIn(page, E2E_ADMIN_EMAIL, "Ops Admin");
    await expect(page).toHaveURL(/\/admin\?tab=beta$/);
    const wave = `Wave ${theme} ${Date.now()}`;
    await page.getByLabel("Wave name").fill(wave);
    await page.getByRole("button", { name: "Open wave" }).click();
    const row = page.getByRole("row").filter({ hasText: wave });
    await expect(row).toBeVisible();
    await row.getByRole("button", { name: `Invitations of ${wave}` }).click();
    await expect(page.getByText("Nobody admitted into this wave yet.")).toBeVisible();
    await page.screenshot({ path: `test-results/beta-tab-375-${theme}.png`, fullPage: true });
    expect(await axe(page, `beta tab (${theme})`)).toBe("");
    await page.context().close();
  }
});
