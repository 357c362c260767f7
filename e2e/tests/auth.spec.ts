import { expect, type Page, test, waitingForPageReady } from "./fixtures";

/** Signs in through the development issuer, starting from /login?redirect=… */
async function signIn(page: Page, { email, name, redirect }: { email: string; name: string; redirect?: string }) {
  await page.goto(redirect === undefined ? "/login" : `/login?redirect=${encodeURIComponent(redirect)}`);
  await page.getByRole("button", { name: "Continue with Google" }).click();
  await expect(page.getByText("Development sign-in")).toBeVisible();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test.describe("sign-in", () => {
  test("signed out: /dashboard goes to /login, the bar offers Get Started", async ({ page }) => {
    await page.goto("/dashboard");
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole("heading", { name: /Sign in to/ })).toBeVisible();
    await expect(page.getByRole("banner").getByRole("link", { name: "Get Started" })).toHaveAttribute("href", "/login");
    for (const benefit of [
      "Manage licenses and subscriptions",
      "Usage analytics",
      "Download invoices and billing history",
      "Transfer licenses between machines",
    ]) {
      await expect(page.getByText(benefit)).toBeVisible();
    }
    await expect(page.getByRole("link", { name: "Terms of Service" })).toHaveAttribute("href", "/terms");
    await expect(page.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute("href", "/privacy");
  });

  test("the whole journey: sign in, land on the return path, user menu, dashboard, logout", async ({
    page,
    request,
  }) => {
    // A deep link: the sign-in returns to /pricing.
    await signIn(page, { email: "ada@example.com", name: "Ada Lovelace", redirect: "/pricing" });
    await expect(page.getByRole("heading", { name: "Welcome!" })).toBeVisible();
    await expect(page).toHaveURL(/\/pricing$/);
    const token = await page.evaluate(() => localStorage.getItem("auth_token"));
    expect(token).toMatch(/^[\w-]{43}$/);

    const menu = page.getByRole("banner").getByRole("button", { name: "Account menu for Ada Lovelace" });
    await expect(menu).toBeVisible();
    await menu.click();
    await page.getByRole("banner").getByRole("link", { name: "Dashboard" }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole("heading", { name: "Customer Dashboard" })).toBeVisible();
    await expect(page.getByRole("main").getByText("ada@example.com")).toBeVisible();

    // A reload keeps the session (the stored token is validated at start).
    await page.reload();
    await expect(page.getByRole("main").getByText("Ada Lovelace")).toBeVisible();

    // /login with a valid token goes straight to the redirect target.
    await page.goto("/login?redirect=/docs/agents");
    await expect(page).toHaveURL(/\/docs\/agents$/);

    await page
      .getByRole("banner")
      .getByRole("button", { name: /Account menu/ })
      .click();
    await page.getByRole("banner").getByRole("button", { name: "Logout" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole("banner").getByRole("link", { name: "Get Started" })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("auth_token"))).toBeNull();
    // Revoked on the server too.
    const validate = await request.get("/api/auth/validate", { headers: { authorization: `Bearer ${token}` } });
    expect(validate.status()).toBe(401);
  });

  test("an off-site redirect parameter never leaves the site", async ({ page }) => {
    await signIn(page, { email: "probe@example.com", name: "Redirect Probe", redirect: "//evil.example/path" });
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/dashboard$/);
  });

  test("a stale stored token is removed and the sign-in page shown", async ({ page }) => {
    await page.goto("/");
    await page.evaluate(() => localStorage.setItem("auth_token", "stale-token-stale-token-stale-token-xx"));
    await page.goto("/login");
    await expect(page.getByRole("button", { name: "Continue with Google" })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("auth_token"))).toBeNull();
  });
});

test.describe("auth callback outcomes", () => {
  test("an error parameter: message, Return to Login, and /login after 3 s", async ({ page }) => {
    await page.goto("/auth/callback?error=access_denied");
    await expect(page.getByRole("heading", { name: "Authentication Failed" })).toBeVisible();
    await expect(page.getByText("Authentication failed: access_denied")).toBeVisible();
    await expect(page.getByRole("button", { name: "Return to Login" })).toBeVisible();
    await expect(page).toHaveURL(/\/login$/, { timeout: 6_000 });
  });

  test("nothing in the address", async ({ page }) => {
    await page.goto("/auth/callback");
    await expect(page.getByText("No authentication data received")).toBeVisible();
    await page.getByRole("button", { name: "Return to Login" }).click();
    await expect(page).toHaveURL(/\/login$/);
  });

  test("a token in the address that does not validate", async ({ page }) => {
    await page.goto("/auth/callback?token=not-a-real-token-not-a-real-token");
    await expect(page.getByText("Token validation failed")).toBeVisible();
  });

  test("a code with a state the server never issued shows the server's error", async ({ page }) => {
    await page.goto("/auth/callback?code=abc&state=forged-state-forged-state-forged");
    await expect(page.getByRole("heading", { name: "Authentication Failed" })).toBeVisible();
    await expect(page.getByText("This sign-in link is invalid or has expired. Please start again.")).toBeVisible();
  });

  test("an encoded state in the path leads to the dashboard without signing in", async ({ page }) => {
    await page.goto("/auth/callback/%2Fdocs%2Fagents");
    // Not signed in, so the dashboard sends the visitor on to /login.
    await expect(page).toHaveURL(/\/login$/);
  });
});

test.describe("sign-in from the attacker's side", () => {
  test("session fixation: another person's token in the address does not sign this browser in", async ({
    page,
    browser,
  }) => {
    const attackerContext = await browser.newContext();
    const attacker = waitingForPageReady(await attackerContext.newPage());
    await signIn(attacker, { email: "fixer@example.com", name: "Session Fixer" });
    await expect(attacker).toHaveURL(/\/dashboard$/);
    const planted = await attacker.evaluate(() => localStorage.getItem("auth_token"));

    await page.goto(`/auth/callback?token=${planted}`);
    await expect(page.getByText("Token validation failed")).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("auth_token"))).toBeNull();

    // The token in the address of the browser that signed in with it is accepted (Welcome!, then the dashboard).
    await attacker.evaluate(() => localStorage.removeItem("auth_token"));
    await attacker.goto(`/auth/callback?token=${planted}`);
    await expect(attacker).toHaveURL(/\/dashboard$/);
    expect(await attacker.evaluate(() => localStorage.getItem("auth_token"))).toBe(planted);
    await attackerContext.close();
  });

  test("login CSRF: a sign-in link captured in one browser does not complete in another", async ({ page, browser }) => {
    const attackerContext = await browser.newContext();
    const attacker = waitingForPageReady(await attackerContext.newPage());
    // The attacker stops their own sign-in at the callback page: the page's exchange never reaches the server.
    await attacker.route("**/api/auth/google/callback", (route) => route.abort());
    await signIn(attacker, { email: "csrf-attacker@example.com", name: "CSRF Attacker" });
    await attacker.waitForURL(/\/auth\/callback\?.*code=/);
    const captured = attacker.url();
    await attackerContext.close();

    await page.goto(captured.replace(/^https?:\/\/[^/]+/, ""));
    await expect(page.getByRole("heading", { name: "Authentication Failed" })).toBeVisible();
    await expect(page.getByText("This sign-in was started in another browser.", { exact: false })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem("auth_token"))).toBeNull();
  });

  test("sign out everywhere ends the session in the other browser too", async ({ page, browser }) => {
    // Two full sign-ins in two browsers: past 30 s on a loaded 2-core machine (a full npm test, 2026-11-29).
    test.slow();
    const otherContext = await browser.newContext();
    const other = waitingForPageReady(await otherContext.newPage());
    await signIn(other, { email: "two-browsers@example.com", name: "Two Browsers" });
    await expect(other).toHaveURL(/\/dashboard$/);
    await signIn(page, { email: "two-browsers@example.com", name: "Two Browsers" });
    await expect(page).toHaveURL(/\/dashboard$/);

    await page
      .getByRole("banner")
      .getByRole("button", { name: /Account menu/ })
      .click();
    // It asks first and names what happens; nothing ends before the confirmation.
    await page.getByRole("banner").getByRole("button", { name: "Sign out everywhere" }).click();
    await expect(page.getByRole("banner")).toContainText("on every browser and device, this one included");
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.getByRole("banner").getByRole("button", { name: "Sign out all" }).click();
    await expect(page).toHaveURL(/\/login(\?signed_out=everywhere)?$/);
    await expect(page.getByRole("status")).toHaveText(/You were signed out everywhere/);
    await other.reload();
    await expect(other).toHaveURL(/\/login$/);
    await otherContext.close();
  });
});
