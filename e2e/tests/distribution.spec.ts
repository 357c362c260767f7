/**
 * Distribution end to end (issue 36): the operator creates an operator token in the console and publishes a signed
 * beta release from the CLI (spawned), then opens Linux downloads in the console; a customer on Linux signs in, creates a
 * license and downloads the build from the portal; the desktop app on another machine (the CLI, on the SDK) finds,
 * downloads and verifies the update, refuses a tampered artifact, and gets nothing once the release is yanked — the
 * link it held stops working.
 *
 * Platform: Linux, not macOS: the journeys run in parallel, and home.spec.ts expects the macOS card's "Join Beta"
 * (the spec's text while macOS is closed); Linux has no home card. Channel: beta. The customer signs up for early
 * access and the admin admits them in a wave (decision 0062's API); signing in with that address accepts it.
 * Key: the server's development release key in its DATA_DIR (loopback, decision 0060), which the server trusts; the
 * CLI's `release keygen` with RELEASE_PUBLIC_KEYS is covered by apps/api/test/release-cli.test.ts.
 */
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { AI_EXPERIENCE_VALUES, PLATFORM_VALUES } from "../../packages/contracts/src/signup-options";
import { expect, type Page, test, waitingForPageReady } from "./fixtures";
import { createFreeLicense, signInOverHttp, signInToDashboard } from "./portal";

const run = promisify(execFile);
const CLI = new URL("../../packages/license-client/bin/flotilla-license.mjs", import.meta.url).pathname;
const ADMIN_EMAIL = "ops-admin@e2e.flotilla.test";
const LINUX_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return { code: 0, out: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: `${failed.stdout}${failed.stderr}` };
  }
}

/** Every file under `dir` (bounded: the artifacts folder holds a few). */
function filesUnder(dir: string, depth = 0): string[] {
  if (depth > 6 || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), depth + 1) : [join(dir, entry.name)],
  );
}

async function consolePage(page: Page, baseURL: string) {
  const token = await signInOverHttp(page.request, ADMIN_EMAIL, "Ops Admin");
  await page.addInitScript((value) => localStorage.setItem("auth_token", value), token);
  await page.goto(`${baseURL}/admin?tab=releases`);
  await expect(page.getByRole("heading", { name: "Releases", level: 2 })).toBeVisible();
  return token;
}

test("an operator publishes a signed beta build, opens Linux, and an admitted tester downloads it; the app verifies, refuses tampering and a yanked release", async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const dataDir = process.env.E2E_DATA_DIR;
  expect(dataDir, "playwright.config.ts shares the server's DATA_DIR").toBeTruthy();
  const signingKey = join(dataDir!, "release-signing-key.pem");
  const publicKey = join(dataDir!, "release-public-key.txt");
  expect(existsSync(signingKey), "the server made its development release key at start").toBe(true);
  const work = mkdtempSync(join(tmpdir(), "flotilla-e2e-dist-"));
  const stamp = Date.now();
  const version = `3.${Math.floor(stamp / 1000) % 1_000_000}.${stamp % 1000}-beta.1`;
  const bytes = randomBytes(256 * 1024);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const artifact = join(work, `Flotilla-${version}.dmg`);
  writeFileSync(artifact, bytes);
  writeFileSync(join(work, "notes.md"), `## ${version}\n\n- Agents resume after a restart.\n`);

  // 1. The operator: a token from the console (shown once), then `release publish` from the CLI.
  const admin = waitingForPageReady(await (await browser.newContext()).newPage());
  const adminToken = await consolePage(admin, baseURL!);
  await admin.getByLabel("Token name").fill(`E2E ${stamp}`);
  await admin.getByRole("button", { name: "Create token" }).click();
  const operatorToken = ((await admin.locator("[data-created-token] code").textContent()) ?? "").trim();
  expect(operatorToken).toMatch(/^flt_op_/);
  const publish = await cli(
    [
      "release",
      "publish",
      "--server",
      baseURL!,
      "--version",
      version,
      "--channel",
      "beta",
      "--notes",
      join(work, "notes.md"),
      "--artifact",
      `linux/x86_64=${artifact}`,
      "--key",
      signingKey,
    ],
    { FLOTILLA_OPERATOR_TOKEN: operatorToken },
  );
  expect(publish.code, publish.out).toBe(0);

  // 2. The console lists it; Linux downloads are opened with the switch.
  await admin.reload();
  const row = admin.locator(`tr[data-release="${version}"]`);
  await expect(row).toContainText("published");
  await expect(row).toContainText(`Flotilla-${version}.dmg`);
  const linuxSwitch = admin.getByRole("switch", { name: "Downloads for Linux" });
  if ((await linuxSwitch.getAttribute("aria-checked")) !== "true") await linuxSwitch.click();
  await expect(linuxSwitch).toHaveAttribute("aria-checked", "true");

  // The customer asked for early access; the admin admits them in a wave (signing in with that address accepts it).
  const customerEmail = `dist-${stamp}@example.com`;
  const signedUp = await admin.request.post(`${baseURL}/api/signup`, {
    data: {
      email: customerEmail,
      name: "Dana Download",
      company: "",
      role: "Tech Lead",
      ai_experience: AI_EXPERIENCE_VALUES[0],
      platform: PLATFORM_VALUES[0],
      interests: "AI Agent Coordination",
      newsletter: false,
    },
  });
  expect(signedUp.status(), await signedUp.text()).toBe(200);
  const asAdmin = { authorization: `Bearer ${adminToken}` };
  const wave = await admin.request.post(`${baseURL}/api/admin/beta/waves`, {
    headers: asAdmin,
    data: { name: `Distribution ${stamp}`, date: new Date().toISOString().slice(0, 10) },
  });
  expect(wave.status(), await wave.text()).toBe(200);
  const candidates = await admin.request.get(`${baseURL}/api/admin/beta/candidates?uninvited=true&limit=200`, {
    headers: asAdmin,
  });
  const candidate = ((await candidates.json()).data as { signup_id: string; email: string }[]).find(
    (entry) => entry.email.toLowerCase() === customerEmail,
  );
  expect(candidate, "the signup is a candidate").toBeTruthy();
  const admitted = await admin.request.post(`${baseURL}/api/admin/beta/waves/${(await wave.json()).data.id}/admit`, {
    headers: asAdmin,
    data: { signup_ids: [candidate!.signup_id] },
  });
  expect(admitted.status(), await admitted.text()).toBe(200);

  // 3. A customer on Linux: the card says which version, and Download gets the very bytes published.
  const customerContext = await browser.newContext({ userAgent: LINUX_UA, acceptDownloads: true });
  const customer = waitingForPageReady(await customerContext.newPage());
  await signInToDashboard(customer, customerEmail, "Dana Download");
  const { licenseKey } = await createFreeLicense(customer);
  await expect(
    customer.getByText(new RegExp(`Download gets Flotilla ${version.replaceAll(".", "\\.")} for Linux \\(beta\\)`)),
  ).toBeVisible();
  const [download] = await Promise.all([
    customer.waitForEvent("download"),
    customer.getByRole("button", { name: "Download", exact: true }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`Flotilla-${version}.dmg`);
  const saved = join(work, "from-portal.dmg");
  await download.saveAs(saved);
  expect(createHash("sha256").update(readFileSync(saved)).digest("hex")).toBe(sha256);
  // The console counts it.
  await admin.reload();
  await expect(admin.locator(`tr[data-release="${version}"]`)).toContainText("Linux 1");

  // 4. The desktop app on another machine (the CLI on the SDK): activate, find, download, verify.
  const state = join(work, "other-pc.json");
  const app = (args: string[]) =>
    cli([...args, "--server", baseURL!, "--state", state, "--machine-id", `other-pc-${stamp}`]);
  expect((await app(["activate", licenseKey])).code).toBe(0);
  const target = ["--current", "1.0.0", "--platform", "linux", "--arch", "x86_64", "--channel", "beta"];
  // Stable finds nothing (the build is on beta); beta, asked for by an admitted tester, finds it.
  const onStable = await app(["update", "check", "--current", "1.0.0", "--platform", "linux", "--arch", "x86_64"]);
  expect(onStable.out).toContain("No update");
  const found = await app(["update", "check", ...target]);
  expect(found.out).toContain(`Update available: ${version}`);
  const first = join(work, "first");
  const got = await app(["update", "download", ...target, "--to", `${first}/`, "--release-key", publicKey]);
  expect(got.code, got.out).toBe(0);
  expect(got.out).toContain(`Downloaded and verified ${version}`);
  expect(
    createHash("sha256")
      .update(readFileSync(join(first, `Flotilla-${version}.dmg`)))
      .digest("hex"),
  ).toBe(sha256);

  // 5. A tampered artifact (one byte changed where the server keeps it) is refused, and nothing is written.
  const stored = filesUnder(join(dataDir!, "artifacts")).find(
    (file) => statSync(file).size === bytes.length && readFileSync(file).equals(bytes),
  );
  expect(stored, "the stored artifact").toBeTruthy();
  const tampered = Buffer.from(bytes);
  tampered[1000] = (tampered[1000]! + 1) % 256;
  writeFileSync(stored!, tampered);
  const second = join(work, "second");
  const refused = await app(["update", "download", ...target, "--to", `${second}/`, "--release-key", publicKey]);
  expect(refused.code).not.toBe(0);
  expect(refused.out).toMatch(/Refused/);
  expect(existsSync(join(second, `Flotilla-${version}.dmg`))).toBe(false);
  writeFileSync(stored!, bytes);

  // 6. Yanked: the link the app already held stops working, and the release is no longer offered.
  const held = await app(["update", "check", ...target, "--json"]);
  const link = JSON.parse(held.out.slice(held.out.indexOf("{"))).update.download.url as string;
  const yank = await cli(["release", "yank", version, "--server", baseURL!, "--reason", "e2e"], {
    FLOTILLA_OPERATOR_TOKEN: operatorToken,
  });
  expect(yank.code, yank.out).toBe(0);
  expect((await customer.request.get(link)).status()).toBe(410);
  const after = await app([
    "update",
    "download",
    ...target,
    "--to",
    `${join(work, "third")}/`,
    "--release-key",
    publicKey,
  ]);
  expect(after.out).toContain("No update");
  expect(existsSync(join(work, "third", `Flotilla-${version}.dmg`))).toBe(false);
  await admin.reload();
  await expect(admin.locator(`tr[data-release="${version}"]`)).toContainText("yanked");

  // Close the platform again: the other journeys see the spec's coming-soon texts.
  await admin.getByRole("switch", { name: "Downloads for Linux" }).click();
  await expect(admin.getByRole("switch", { name: "Downloads for Linux" })).toHaveAttribute("aria-checked", "false");
});
