import { EXECUTOR_CLIS, TEAM_INTEGRATIONS } from "../../packages/contracts/src/integrations";
import { PLANS } from "../../packages/contracts/src/plans";
import { expect, test } from "./fixtures";

test.describe("home page", () => {
  test.beforeEach(async ({ page }) => {
    await page.goto("/");
  });

  test("shows the hero, the sample dashboard and the six feature cards", async ({ page }) => {
    const dashboard = page.getByRole("figure", { name: "Sample Flotilla task dashboard" });
    await expect(dashboard).toContainText("12Active tasks");
    await expect(dashboard).toContainText("3AI agents");
    await expect(dashboard).toContainText("24Completed");
    await expect(page.locator("#features li")).toHaveCount(6);
  });

  test("the integrations section names every supported tool (decision 0021)", async ({ page }) => {
    const section = page.locator("#integrations");
    for (const name of [
      ...EXECUTOR_CLIS.map((cli) => cli.name),
      "Echo",
      ...Object.values(TEAM_INTEGRATIONS).map((t) => t.name),
    ]) {
      await expect(section.getByText(name, { exact: true })).toBeVisible();
    }
    await expect(section).toContainText("Hybrid Pro");
  });

  test("the pricing section shows the plans' own wording and no quota note for plans without a quota", async ({
    page,
  }) => {
    const section = page.locator("#pricing");
    for (const plan of PLANS.slice(0, 2)) {
      for (const item of plan.includes) await expect(section.getByText(item, { exact: true })).toBeVisible();
    }
    await expect(section.getByText("Quotas add up monthly.")).toHaveCount(0);
  });

  test("platform cards carry the spec's statuses and labels", async ({ page }) => {
    const cards = page.locator("#roadmap li[data-status]");
    await expect(cards).toHaveCount(3);
    await expect(cards.nth(0)).toHaveAttribute("data-status", "beta-signup");
    await expect(cards.nth(0).getByRole("button", { name: "Join Beta" })).toBeVisible();
    await expect(cards.nth(1)).toHaveAttribute("data-status", "coming-soon");
    await expect(cards.nth(1)).toContainText("Q1 2026");
    await expect(cards.nth(1)).toContainText("Coming Soon");
    await expect(cards.nth(2)).toContainText("Q2 2026");
  });

  test("the capability table marks three capabilities unavailable on the web only", async ({ page }) => {
    const unavailable = page.locator("#roadmap tbody tr").filter({ has: page.getByLabel("Not available") });
    await expect(unavailable).toHaveCount(3);
    await expect(unavailable.locator("th")).toHaveText([
      "Offline Mode",
      "File System Integration",
      "Native Performance",
    ]);
    for (const row of await unavailable.all()) {
      await expect(row.getByLabel("Not available")).toHaveCount(1);
      await expect(row.locator("td").first().getByLabel("Not available")).toHaveCount(1);
    }
  });

  test("the timeline has five planned entries", async ({ page }) => {
    const entries = page.locator("#roadmap ol li");
    await expect(entries).toHaveCount(5);
    await expect(entries.locator("[data-status=planned]")).toHaveCount(5);
    await expect(entries.first()).toContainText("Q3 2025");
    await expect(entries.last()).toContainText("Self-hosted AI models");
  });

  test("Watch Demo opens the video modal; Escape and the X close it", async ({ page }) => {
    await page.getByRole("button", { name: "Watch Demo" }).click();
    const dialog = page.getByRole("dialog", { name: "Product tour" });
    await expect(dialog).toBeVisible();
    const video = dialog.getByTestId("demo-video");
    await expect(video).toHaveAttribute("preload", "metadata");
    await expect(video).toHaveAttribute("src", /\.mp4$/);
    // The burned-in captions are unreadable at 375 px: they are a text track too, on by default.
    await expect
      .poll(() =>
        video.evaluate((element: HTMLVideoElement) => {
          const track = element.textTracks[0];
          return track ? `${track.kind} ${track.language} ${track.mode} ${track.cues?.length ?? 0}` : "none";
        }),
      )
      .toBe("captions en showing 5");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("button", { name: "Watch Demo" })).toBeFocused();

    await page.getByRole("button", { name: "Watch Demo" }).click();
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect(dialog).toBeHidden();
  });

  test("the demo video file is a real MP4 and the link opens it in a new tab", async ({ page, request }) => {
    const link = page.getByRole("link", { name: "Watch Demo Video" });
    await expect(link).toHaveAttribute("target", "_blank");
    const href = await link.getAttribute("href");
    const response = await request.get(href!);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toContain("video/mp4");
    expect((await response.body()).length).toBeGreaterThan(100_000);
  });

  test("Get Early Access, Join Beta and the macOS card open the early-access dialog", async ({ page }) => {
    await page.getByRole("button", { name: "Get Early Access" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Get Early Access" });
    // The form arrives in its own chunk: wait for it, so Escape reaches the real dialog, not the loading one.
    await expect(dialog.getByLabel("Email")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await page.locator("#roadmap").getByRole("button", { name: "Join Beta" }).click();
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.locator("#pricing").getByRole("button", { name: "Join Beta" }).click();
    await expect(dialog).toBeVisible();
  });
});
