/** Steps the portal journeys share: a development sign-in, a free license, and the desktop app played by the CLI. */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { expect, type Locator, type Page } from "./fixtures";

const CLI = new URL("../../packages/license-client/bin/flotilla-license.mjs", import.meta.url).pathname;

/** Signs in on the development issuer (over HTTP, as the screens would) and lands on the dashboard. */
export async function signInToDashboard(page: Page, email: string, name: string): Promise<void> {
  const token = await signInOverHttp(page.request, email, name);
  // Where the portal keeps the session (spec: local storage, auth_token), once for this tab: a later sign-out stays so.
  await page.addInitScript((value) => {
    if (sessionStorage.getItem("e2e-session-planted")) return;
    sessionStorage.setItem("e2e-session-planted", "yes");
    localStorage.setItem("auth_token", value);
  }, token);
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/dashboard$/);
}

/**
 * The development sign-in over HTTP, as the screens drive it, with the browser context's own cookies (the sign-in is
 * bound to the browser that started it): answers the session's token. Journeys that test the sign-in screens
 * (auth.spec.ts, the console's, the accessibility audit) go through them; the others start signed in this way, which
 * saves each of them the five page loads of the screens.
 */
export async function signInOverHttp(request: APIRequestContext, email: string, name: string): Promise<string> {
  const started = await request.post("/api/auth/google/url", { data: { state: "/dashboard" } });
  let response = await request.get((await started.json()).authUrl as string, { maxRedirects: 0 });
  for (let hops = 0; response.status() >= 300 && response.status() < 400 && hops < 5; hops++) {
    response = await request.get(response.headers().location!, { maxRedirects: 0 });
  }
  const action = /action="([^"]+)"/.exec(await response.text())?.[1];
  if (!action) throw new Error("no development sign-in form");
  response = await request.post(action, { form: { email, name }, maxRedirects: 0 });
  for (let hops = 0; hops < 5; hops++) {
    const location = new URL(response.headers().location ?? "", response.url());
    if (location.pathname === "/auth/callback") {
      const callback = await request.post("/api/auth/google/callback", {
        data: { code: location.searchParams.get("code"), state: location.searchParams.get("state") },
      });
      if (!callback.ok()) throw new Error(`the sign-in callback answered ${callback.status()}`);
      return (await callback.json()).data.token as string;
    }
    response = await request.get(location.toString(), { maxRedirects: 0 });
  }
  throw new Error("the development sign-in did not reach the callback");
}

/** Creates a free license from the dashboard; answers the key as shown and the element that shows it. */
export async function createFreeLicense(page: Page): Promise<{ licenseKey: string; keyText: Locator }> {
  await page.getByRole("button", { name: "Create Free License" }).first().click();
  await page
    .getByRole("dialog", { name: "Create Your License" })
    .getByRole("button", { name: "Create Free License" })
    .click();
  const keyText = page.getByTestId("license-key");
  await expect(keyText).toHaveText(/^FLOT(-[0-9A-Z]{5}){5}$/);
  return { licenseKey: (await keyText.textContent())!.trim(), keyText };
}

/**
 * Plays the desktop app: `flotilla-license <command>` as one machine (a development build). With
 * `rememberMachines`, each machine keeps its state file across calls, as separate computers would; without, every
 * call starts from an empty state file.
 */
export function desktopCli({ rememberMachines }: { rememberMachines: boolean }) {
  const stateFiles = new Map<string, string>();
  return (server: string, machineId: string, args: string[]): { code: number; out: string } => {
    let state = rememberMachines ? stateFiles.get(machineId) : undefined;
    if (!state) {
      state = join(mkdtempSync(join(tmpdir(), "flotilla-cli-")), "license.json");
      if (rememberMachines) stateFiles.set(machineId, state);
    }
    try {
      const out = execFileSync(
        process.execPath,
        [CLI, "--server", server, "--state", state, ...args, "--machine-id", machineId],
        { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
      );
      return { code: 0, out };
    } catch (error) {
      const failed = error as { status: number; stdout: string; stderr: string };
      return { code: failed.status, out: `${failed.stdout}${failed.stderr}` };
    }
  };
}
