/**
 * The live dashboard (issue 26): what runs now, devices and their heartbeats appear as they happen, with no refresh.
 * The desktop app is played with plain HTTP calls from the test (the answers' signatures are the SDK's business).
 */
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { createFreeLicense, signInToDashboard } from "./portal";

function desktop(request: APIRequestContext, licenseKey: string) {
  return {
    validate: (machineId: string, name: string) =>
      request.post("/api/license/validate", {
        data: { license_key: licenseKey, machine_id: machineId, machine_name: name },
      }),
    start: (machineId: string, feature?: string) =>
      request.post("/api/license/executions", {
        data: { license_key: licenseKey, machine_id: machineId, ...(feature ? { feature } : {}) },
      }),
    end: (machineId: string, id: string) =>
      request.post(`/api/license/executions/${id}/end`, { data: { license_key: licenseKey, machine_id: machineId } }),
    heartbeat: (machineId: string, id: string) =>
      request.post(`/api/license/executions/${id}/heartbeat`, {
        data: { license_key: licenseKey, machine_id: machineId },
      }),
  };
}

test("the dashboard shows devices and running executions live; a second execution is refused", async ({
  page,
  request,
}) => {
  test.setTimeout(60_000); // a dozen steps, each waiting for the stream
  await signInToDashboard(page, `live-${Date.now()}@example.com`, "Grace Hopper");
  const { licenseKey } = await createFreeLicense(page);
  const live = page.getByRole("status").filter({ hasText: /^Live$/ });
  await expect(live).toBeVisible();
  const app = desktop(request, licenseKey);
  const running = page.getByRole("region", { name: "Running now" });
  await expect(running.getByTestId("running-count")).toHaveText("0 of 1");

  // A device binds: the card names it without a refresh.
  expect((await app.validate("grace-laptop", "Grace's laptop")).ok()).toBe(true);
  expect((await app.validate("grace-desktop", "Grace's desktop")).ok()).toBe(true);
  await expect(page.getByText("grace-laptop").first()).toBeVisible();

  // An execution starts on the laptop: "1 of 1", with the device and what it runs.
  const started = await app.start("grace-laptop", "code-review");
  expect(started.status()).toBe(200);
  const execution = (await started.json()).data.execution as { id: string };
  await expect(running.getByTestId("running-count")).toHaveText("1 of 1");
  await expect(running.getByRole("listitem")).toContainText("Grace's laptop");
  await expect(running.getByRole("listitem")).toContainText("code review");

  // The desktop cannot start a second one: refused, naming the laptop.
  const refused = await app.start("grace-desktop");
  expect(refused.status()).toBe(409);
  const refusal = await refused.json();
  expect(refusal.code).toBe("EXECUTION_LIMIT");
  expect(refusal.running[0].machine_name).toBe("Grace's laptop");

  // The laptop finishes: the dashboard shows it at once.
  expect((await app.end("grace-laptop", execution.id)).ok()).toBe(true);
  await expect(running.getByTestId("running-count")).toHaveText("0 of 1");

  // The owner ends a running execution from the dashboard: it says "Stopping on …" — the slot still taken, nothing
  // else may start — until the app has stopped and said so (decision 0052); then it is gone.
  const again = (await (await app.start("grace-desktop", "batch-run")).json()).data.execution as { id: string };
  await expect(running.getByTestId("running-count")).toHaveText("1 of 1");
  await running.getByRole("button", { name: "End the execution on Grace's desktop" }).click();
  await running.getByRole("button", { name: "End execution" }).click();
  await expect(running.getByRole("status").filter({ hasText: "Stopping on Grace's desktop…" })).toBeVisible();
  await expect(running.getByTestId("running-count")).toHaveText("1 of 1");
  await expect(running.getByRole("button")).toHaveCount(0);
  expect((await app.start("grace-laptop")).status()).toBe(409);
  const heard = await app.heartbeat("grace-desktop", again.id);
  expect(heard.status()).toBe(410);
  expect(await heard.json()).toMatchObject({ code: "EXECUTION_ENDED", end_reason: "ended_by_owner" });
  expect((await app.end("grace-desktop", again.id)).ok()).toBe(true);
  await expect(running.getByTestId("running-count")).toHaveText("0 of 1");
  await expect(running).toContainText("Nothing is running.");
});

test("without the event stream the dashboard says live updates are paused, and refresh still works", async ({
  page,
  request,
}) => {
  await page.route("**/api/customer/events", (route) => route.abort("connectionrefused"));
  await signInToDashboard(page, `live-off-${Date.now()}@example.com`, "Alan Turing");
  const { licenseKey } = await createFreeLicense(page);
  await expect(page.getByRole("status").filter({ hasText: "Live updates paused" })).toBeVisible();
  const app = desktop(request, licenseKey);
  await app.validate("alan-laptop", "Alan's laptop");
  await app.start("alan-laptop");
  const running = page.getByRole("region", { name: "Running now" });
  await page.getByRole("button", { name: "Refresh dashboard" }).click();
  await expect(running.getByTestId("running-count")).toHaveText("1 of 1");
});
