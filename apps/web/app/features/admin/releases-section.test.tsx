/** The console's Releases tab (issue 36): releases, the download switch, yank, promote, operator tokens. */
import { screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { OperatorToken, PlatformSwitch, ReleaseItem } from "./releases-api";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const RELEASE_ID = "0d9c8f5e-4b0a-4c65-9f1e-2a3b4c5d6e7f";
const ARTIFACT = {
  id: "7a1b2c3d-4e5f-4a6b-8c9d-0e1f2a3b4c5d",
  release_id: RELEASE_ID,
  platform: "macos" as const,
  arch: "universal" as const,
  filename: "Flotilla-1.4.0-macos-universal.dmg",
  size: 88_300_000,
  sha256: "a".repeat(64),
  sha512: "b".repeat(128),
  signature: "s",
  minisign_signature: "m",
  upload_state: "complete" as const,
  created_at: "2026-11-20T10:00:00.000Z",
};
const PUBLISHED: ReleaseItem = {
  id: RELEASE_ID,
  version: "1.4.0",
  channel: "beta",
  state: "published",
  notes: "",
  requires_feature: null,
  created_at: "2026-11-20T10:00:00.000Z",
  published_at: "2026-11-20T11:00:00.000Z",
  yanked_at: null,
  artifacts: [ARTIFACT],
  downloads: { total: 12, by_platform: { macos: 9, windows: 0, linux: 3 } },
};
const SWITCHES: PlatformSwitch[] = [
  { platform: "macos", open: false, changed_at: null, changed_by: null },
  { platform: "windows", open: false, changed_at: null, changed_by: null },
  { platform: "linux", open: true, changed_at: "2026-11-21T09:00:00.000Z", changed_by: "ops@example.com" },
];
const TOKEN: OperatorToken = {
  id: "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9",
  name: "GitHub Actions",
  scopes: ["releases:write"],
  hint: "AbCd",
  created_at: "2026-11-19T10:00:00.000Z",
  created_by: "ops@example.com",
  last_used_at: null,
  revoked_at: null,
};

function api(overrides: Record<string, Parameters<typeof fakeApi>[0][string]> = {}) {
  let switches = SWITCHES;
  let release = PUBLISHED;
  let tokens = [TOKEN];
  return fakeApi({
    ...signedInAdmin(),
    "GET /api/admin/releases": () => json(200, { success: true, data: [release] }),
    "GET /api/admin/downloads/platforms": () => json(200, { success: true, data: switches }),
    "GET /api/admin/operator-tokens": () => json(200, { success: true, data: tokens }),
    "PUT /api/admin/downloads/platforms/macos": (_url, init) => {
      const { open } = JSON.parse(String(init?.body));
      switches = switches.map((entry) => (entry.platform === "macos" ? { ...entry, open } : entry));
      return json(200, { success: true, data: switches });
    },
    [`POST /api/admin/releases/${RELEASE_ID}/yank`]: () => {
      release = { ...release, state: "yanked", yanked_at: "2026-11-28T22:00:00.000Z" };
      return json(200, { success: true, data: release });
    },
    [`POST /api/admin/releases/${RELEASE_ID}/promote`]: (_url, init) => {
      release = { ...release, channel: JSON.parse(String(init?.body)).channel };
      return json(200, { success: true, data: release });
    },
    "POST /api/admin/operator-tokens": () => {
      const created = { ...TOKEN, id: "new-token", name: "Release CI", hint: "XyZw" };
      tokens = [...tokens, created];
      return json(200, { success: true, data: { ...created, token: "flt_op_XyZw-secret-shown-once" } });
    },
    [`DELETE /api/admin/operator-tokens/${TOKEN.id}`]: () => {
      tokens = tokens.map((token) =>
        token.id === TOKEN.id ? { ...token, revoked_at: "2026-11-28T22:00:00.000Z" } : token,
      );
      return json(200, { success: true, data: tokens[0] });
    },
    ...overrides,
  });
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Releases tab", () => {
  it("lists releases with their state, channel, artifacts and downloads per platform", async () => {
    api();
    renderAdmin("/admin?tab=releases");
    const table = await screen.findByRole("table", { name: "Releases" });
    const row = within(table).getAllByRole("row")[1]!;
    expect(row).toHaveTextContent("1.4.0");
    expect(row).toHaveTextContent("beta");
    expect(row).toHaveTextContent("published");
    expect(row).toHaveTextContent("macOS 9 · Windows 0 · Linux 3");
    expect(row).toHaveTextContent("Flotilla-1.4.0-macos-universal.dmg");
    expect(row).toHaveTextContent("84.2 MB");
    expect(screen.getByRole("link", { name: "Releases" })).toHaveAttribute("aria-current", "page");
  });

  it("opens a platform's downloads with its switch (closed by default), and says so", async () => {
    const { calls } = api();
    const { user } = renderAdmin("/admin?tab=releases");
    const mac = await screen.findByRole("switch", { name: "Downloads for macOS" });
    expect(mac).toHaveAttribute("aria-checked", "false");
    expect(screen.getByRole("switch", { name: "Downloads for Linux" })).toHaveAttribute("aria-checked", "true");
    await user.click(mac);
    expect(await screen.findByText(/Downloads for macOS are open/)).toBeInTheDocument();
    expect(calls("PUT", "/api/admin/downloads/platforms/macos").map((call) => call.body)).toEqual([{ open: true }]);
    await waitFor(() =>
      expect(screen.getByRole("switch", { name: "Downloads for macOS" })).toHaveAttribute("aria-checked", "true"),
    );
  });

  it("yanks only after a confirmation, with the reason; Cancel sends nothing", async () => {
    const { calls } = api();
    const { user } = renderAdmin("/admin?tab=releases");
    await user.click(await screen.findByRole("button", { name: "Yank 1.4.0" }));
    let dialog = screen.getByRole("dialog", { name: "Yank 1.4.0?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(calls("POST", `/api/admin/releases/${RELEASE_ID}/yank`)).toHaveLength(0);

    await user.click(screen.getByRole("button", { name: "Yank 1.4.0" }));
    dialog = screen.getByRole("dialog", { name: "Yank 1.4.0?" });
    await user.type(within(dialog).getByLabelText(/Reason/), "Crashes on launch");
    await user.click(within(dialog).getByRole("button", { name: "Yank release" }));
    expect(await screen.findByText(/1\.4\.0 was yanked/)).toBeInTheDocument();
    expect(calls("POST", `/api/admin/releases/${RELEASE_ID}/yank`).map((call) => call.body)).toEqual([
      { reason: "Crashes on launch" },
    ]);
    const table = await screen.findByRole("table", { name: "Releases" });
    await waitFor(() => expect(within(table).getAllByRole("row")[1]).toHaveTextContent("yanked"));
    expect(screen.queryByRole("button", { name: "Yank 1.4.0" })).toBeNull();
  });

  it("promotes a beta to stable", async () => {
    const { calls } = api();
    const { user } = renderAdmin("/admin?tab=releases");
    await user.click(await screen.findByRole("button", { name: "Promote 1.4.0" }));
    const dialog = screen.getByRole("dialog", { name: "Promote 1.4.0" });
    expect(within(dialog).getByLabelText("New channel")).toHaveValue("stable");
    await user.click(within(dialog).getByRole("button", { name: "Promote" }));
    expect(await screen.findByText("1.4.0 moved from beta to stable.")).toBeInTheDocument();
    expect(calls("POST", `/api/admin/releases/${RELEASE_ID}/promote`).map((call) => call.body)).toEqual([
      { channel: "stable" },
    ]);
  });

  it("creates an operator token shown once, and revokes one after a confirmation", async () => {
    const { calls } = api();
    const { user } = renderAdmin("/admin?tab=releases");
    const list = await screen.findByRole("list", { name: "Operator tokens" });
    expect(list).toHaveTextContent("GitHub Actions");
    expect(list).toHaveTextContent("flt_op_AbCd…");
    await user.type(screen.getByLabelText("Token name"), "Release CI");
    await user.click(screen.getByRole("button", { name: "Create token" }));
    expect(await screen.findByText("flt_op_XyZw-secret-shown-once")).toBeInTheDocument();
    expect(screen.getByText(/it is not shown again/)).toBeInTheDocument();
    expect(calls("POST", "/api/admin/operator-tokens").map((call) => call.body)).toEqual([
      { name: "Release CI", scopes: ["releases:write"] },
    ]);

    await user.click(screen.getByRole("button", { name: "Revoke token GitHub Actions" }));
    await user.click(
      within(screen.getByRole("dialog", { name: /Revoke “GitHub Actions”/ })).getByRole("button", {
        name: "Revoke token",
      }),
    );
    expect(await screen.findByText(/The token “GitHub Actions” is revoked/)).toBeInTheDocument();
    expect(calls("DELETE", `/api/admin/operator-tokens/${TOKEN.id}`)).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole("button", { name: "Revoke token GitHub Actions" })).toBeNull());
  });

  it("shows the server's refusal in the dialog and changes nothing on screen", async () => {
    api({
      [`POST /api/admin/releases/${RELEASE_ID}/yank`]: () =>
        json(409, {
          success: false,
          error: "Only a published release can be yanked or promoted.",
          code: "NOT_PUBLISHED",
        }),
    });
    const { user } = renderAdmin("/admin?tab=releases");
    await user.click(await screen.findByRole("button", { name: "Yank 1.4.0" }));
    const dialog = screen.getByRole("dialog", { name: "Yank 1.4.0?" });
    await user.click(within(dialog).getByRole("button", { name: "Yank release" }));
    expect(await within(dialog).findByText("Only a published release can be yanked or promoted.")).toBeInTheDocument();
  });
});
