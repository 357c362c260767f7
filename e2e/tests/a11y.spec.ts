import { readdirSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { DOCS_PAGES } from "../../packages/contracts/src/docs";
import { STATIC_PUBLIC_PATHS } from "../../packages/contracts/src/navigation";
import { expect, type Page, test } from "./fixtures";

/**
 * WCAG 2.1 A/AA with axe-core: zero violations on every route, in both themes, and with every dialog and the
 * portal's panels open. No rule is disabled and nothing is excluded: a finding is fixed in apps/web.
 */
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const THEMES = ["light", "dark"] as const;
type Theme = (typeof THEMES)[number];

const BLOG_SLUGS = readdirSync(new URL("../../apps/web/content/blog", import.meta.url))
  .filter((file) => file.endsWith(".md"))
  .map((file) => file.slice(0, -".md".length))
  .sort();

/** The failed sign-in page: it sends the visitor on to /login after 3 s. */
const FAILED_SIGN_IN = "/auth/callback?error=access_denied";

/** Routes grouped so that each group is one test per theme (a page load and one axe run per route). */
const ROUTE_GROUPS: Record<string, readonly string[]> = {
  "site pages": STATIC_PUBLIC_PATHS,
  "docs pages": ["/docs", ...DOCS_PAGES.map((page) => `/docs/${page.slug}`), "/docs/release-notes"],
  "blog posts": BLOG_SLUGS.map((slug) => `/blog/${slug}`),
  "client-only and error pages": [
    "/login",
    "/newsletter/unsubscribe",
    "/newsletter/unsubscribe?token=00000000-0000-0000-0000-000000000000.forged",
    "/newsletter/confirm?token=00000000-0000-0000-0000-000000000000.1.forged",
    "/newsletter/confirm",
    "/no-such-page",
    // Last: it holds the page's clock (see below).
    FAILED_SIGN_IN,
  ],
};

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** One line per rule, then up to four offending elements with axe's own first reason. */
function summarize(where: string, violations: readonly AxeViolation[]): string {
  return violations
    .map((violation) => {
      const nodes = violation.nodes.slice(0, 4).map((node) => {
        const reason = (node.failureSummary ?? "").split("\n").slice(1).join(" ").trim().slice(0, 180);
        return `      ${node.target.join(" ")} — ${reason}`;
      });
      const more = violation.nodes.length > 4 ? [`      … and ${violation.nodes.length - 4} more`] : [];
      return [
        `  ${where}: ${violation.id} [${violation.impact ?? "?"}] ${violation.help} (${violation.nodes.length})`,
        ...nodes,
        ...more,
      ].join("\n");
    })
    .join("\n");
}

/** Runs axe on the page as it is now; returns the readable summary of what it found ("" when clean). */
async function audit(page: Page, where: string): Promise<string> {
  // Legacy mode runs axe in the page itself instead of finishing in a blank page it opens: a third faster, and
  // the same rules and results here (the site has no iframes, the one thing the newer mode handles better).
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode(true).analyze();
  return summarize(where, violations);
}

/**
 * The same, on a page whose clock is paused (page.clock.pauseAt): axe schedules its own work with setTimeout,
 * so the clock is moved on one millisecond per round trip while it runs (a few dozen in all). A page timer due
 * seconds later (a redirect) would need thousands: it cannot fire during the audit, however slow the machine.
 */
async function auditWithPausedClock(page: Page, where: string): Promise<string> {
  let done = false;
  const ticking = (async () => {
    while (!done) await page.clock.runFor(1);
  })();
  try {
    return await audit(page, where);
  } finally {
    done = true;
    await ticking;
  }
}

function expectClean(findings: readonly string[]) {
  const problems = findings.filter(Boolean);
  expect(problems, `axe found WCAG 2.1 AA violations:\n${problems.join("\n")}`).toEqual([]);
}

async function useTheme(page: Page, theme: Theme) {
  await page.addInitScript((value) => localStorage.setItem("theme", value), theme);
}

async function expectTheme(page: Page, theme: Theme) {
  if (theme === "dark") await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  else await expect(page.locator("html")).not.toHaveClass(/\bdark\b/);
}

for (const theme of THEMES) {
  test.describe(`axe, ${theme} theme`, () => {
    test.beforeEach(async ({ page }) => {
      await useTheme(page, theme);
    });

    for (const [group, paths] of Object.entries(ROUTE_GROUPS)) {
      test(`${group}: no WCAG 2.1 AA violations`, async ({ page }) => {
        test.setTimeout(90_000);
        const findings: string[] = [];
        for (const path of paths) {
          const holdClock = path === FAILED_SIGN_IN;
          if (holdClock) {
            await page.clock.install();
            await page.clock.pauseAt(Date.now() + 1_000);
          }
          await page.goto(path);
          await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
          if (holdClock) await expect(page.getByRole("heading", { name: "Authentication Failed" })).toBeVisible();
          await expectTheme(page, theme);
          const where = `${theme} ${path}`;
          findings.push(holdClock ? await auditWithPausedClock(page, where) : await audit(page, where));
          // Still the page that was audited (no redirect happened under axe's feet).
          expect(new URL(page.url()).pathname).toBe(new URL(path, page.url()).pathname);
        }
        expectClean(findings);
      });
    }

    test("dialogs: early access (form and errors), demo video, docs search", async ({ page }) => {
      // Six full-page audits: with two workers on two cores this can take more than 30 s.
      test.setTimeout(90_000);
      const findings: string[] = [];
      await page.goto("/");
      await expectTheme(page, theme);

      await page.getByRole("button", { name: "Get Early Access" }).first().click();
      const signup = page.getByRole("dialog", { name: "Get Early Access" });
      await expect(signup.getByLabel("Email")).toBeVisible();
      findings.push(await audit(page, `${theme} / early-access dialog`));
      await signup.getByRole("button", { name: "Secure My Spot" }).click();
      await expect(signup.getByTestId("signup-errors")).toBeVisible();
      findings.push(await audit(page, `${theme} / early-access dialog with errors`));
      await page.keyboard.press("Escape");
      await expect(signup).toBeHidden();

      await page.getByRole("button", { name: "Watch Demo" }).click();
      const video = page.getByRole("dialog", { name: "Product tour" });
      await expect(video.getByTestId("demo-video")).toBeVisible();
      findings.push(await audit(page, `${theme} / video dialog`));
      await page.keyboard.press("Escape");
      await expect(video).toBeHidden();

      await page.goto("/docs/getting-started");
      await page.keyboard.press("Control+k");
      const search = page.getByRole("dialog", { name: "Search the docs" });
      await expect(search).toBeVisible();
      findings.push(await audit(page, `${theme} /docs search dialog`));
      await search.getByRole("combobox").fill("memory");
      await expect(search.getByRole("option").first()).toBeVisible();
      findings.push(await audit(page, `${theme} /docs search dialog with results`));

      expectClean(findings);
    });

    test("portal: dashboard, Create Your License, devices with analytics", async ({ page, request }) => {
      test.setTimeout(90_000);
      const findings: string[] = [];
      await page.goto("/login");
      await expectTheme(page, theme);
      await page.getByRole("button", { name: "Continue with Google" }).click();
      await expect(page.getByText("Development sign-in")).toBeVisible();
      findings.push(await audit(page, `${theme} development sign-in page`));
      await page.getByLabel("Email").fill(`a11y-${theme}-${Date.now()}@example.com`);
      await page.getByLabel("Name").fill(`Axe ${theme}`);
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page).toHaveURL(/\/dashboard$/);
      await expect(page.getByText("No licenses yet")).toBeVisible();
      findings.push(await audit(page, `${theme} /dashboard without licenses`));

      await page.getByRole("button", { name: "Create Free License" }).first().click();
      const dialog = page.getByRole("dialog", { name: "Create Your License" });
      await expect(dialog.getByRole("button", { name: "Create Free License" })).toBeVisible();
      findings.push(await audit(page, `${theme} /dashboard Create Your License dialog`));
      await dialog.getByRole("button", { name: "Create Free License" }).click();
      await expect(dialog).toBeHidden();
      const licenseKey = (await page.getByText(/^FLOT(-[0-9A-Z]{5}){5}$/).textContent())!.trim();

      // The desktop app validates on two machines and reports usage, so the device panel has rows and figures.
      for (const machineId of ["desktop-axe-laptop", "server-axe-ci"]) {
        const answer = await request.post("/api/license/validate", {
          data: { license_key: licenseKey, machine_id: machineId },
        });
        expect((await answer.json()).data.code).toBe("VALID");
      }
      await request.post("/api/license/usage", {
        data: { license_key: licenseKey, machine_id: "server-axe-ci", executions: 12, feature: "code-review" },
      });
      await page.reload();
      await expect(page.getByText("server-axe-ci")).toBeVisible();
      findings.push(await audit(page, `${theme} /dashboard with a license and devices`));

      await page.getByRole("button", { name: /Show Analytics/ }).click();
      await expect(page.getByText("Usage Analytics (Last 30 Days)")).toBeVisible();
      await expect(page.getByText("Code Review").first()).toBeVisible();
      findings.push(await audit(page, `${theme} /dashboard device analytics`));

      await page
        .getByRole("banner")
        .getByRole("button", { name: /Account menu/ })
        .click();
      await expect(page.getByRole("banner").getByRole("button", { name: "Logout" })).toBeVisible();
      findings.push(await audit(page, `${theme} /dashboard account menu`));

      expectClean(findings);
    });
  });
}
