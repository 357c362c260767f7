/** Steps the portal journeys share: a development sign-in, a free license, and the desktop app played by the CLI. */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Locator, type Page } from "./fixtures";

const CLI = new URL("../../packages/license-client/bin/flotilla-license.mjs", import.meta.url).pathname;

/** Signs in on the development issuer from /login and lands on the dashboard. */
export async function signInToDashboard(page: Page, email: string, name: string): Promise<void> {
  await page.goto("/login");
  await page.getByRole("button", { name: "Continue with Google" }).click();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
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
