import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const RELEASE_ID = "55555555-5555-4555-8555-555555555555";
const artifact = {
  id: "66666666-6666-4666-8666-666666666666",
  release_id: RELEASE_ID,
  platform: "macos",
  arch: "universal",
  filename: "Flotilla-1.5.0.dmg",
  size: 3 * 1024 * 1024,
  sha256: "a".repeat(64),
  sha512: "b".repeat(128),
  signature: "sig",
  minisign_signature: "mini",
  upload_state: "complete",
  created_at: "2026-11-01T10:00:00.000Z",
};
const release = (state: "published" | "yanked" = "published", channel = "beta") => ({
  id: RELEASE_ID,
  version: "1.5.0",
  channel,
  state,
  notes: "## 1.5.0",
  requires_feature: null,
  created_at: "2026-11-01T10:00:00.000Z",
  published_at: "2026-11-01T11:00:00.000Z",
  yanked_at: state === "yanked" ? "2026-11-02T11:00:00.000Z" : null,
  artifacts: [artifact],
  downloads: { total: 42, by_platform: { macos: 40, windows: 0, linux: 2 } },
});
const TOKEN = {
  id: "77777777-7777-4777-8777-777777777777",
  name: "CI",
  scopes: ["releases:write"],
  hint: "abcd",
  created_at: "2026-11-01T10:00:00.000Z",
  created_by: "ops@example.com",
  last_used_at: null,
  revoked_at: null,
};
const closed = (platform: string) => ({ platform, open: false, changed_at: null, changed_by: null });

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function releasesApi(overrides: Record<string, Parameters<typeof fakeApi>[0][string]> = {}) {
  let current = release();
  let tokens = [TOKEN];
  let platforms = ["macos", "windows", "linux"].map(closed);
  return fakeApi({
    ...signedInAdmin(),
    "GET /api/admin/releases": () => json(200, { success: true, data: [current] }),
    "GET /api/admin/operator-tokens": () => json(200, { success: true, data: tokens }),
    "GET /api/admin/downloads/platforms": () => json(200, { success: true, data: platforms }),
    "PUT /api/admin/downloads/platforms/macos": (_url, init) => {
      const open = JSON.parse(String(init?.body)).open as boolean;
      platforms = platforms.map((p) =>
        p.platform === "macos"
          ? { ...p, open, changed_at: "2026-11-03T09:00:00.000Z", changed_by: "ops@example.com" }
          : p,
      );
      return json(200, { success: true, data: platforms });
    },
    [`POST /api/admin/releases/${RELEASE_ID}/yank`]: () => {
      current = release("yanked");
      return json(200, { success: true, data: current });
    },
    [`POST /api/admin/releases/${RELEASE_ID}/promote`]: () => {
      current = release("published", "stable");
      return json(200, { success: true, data: current });
    },
    "POST /api/admin/operator-tokens": () => {
      const created = { ...TOKEN, id: "88888888-8888-4888-8888-888888888888", name: "GitHub Actions", hint: "wxyz" };
      tokens = [...tokens, created];
      return json(200, { success: true, data: { ...created, token: "flt_op_wxyz_secret_once" } });
    },
    [`DELETE /api/admin/operator-tokens/${TOKEN.id}`]: () => {
      tokens = tokens.map((t) => (t.id === TOKEN.id ? { ...t, revoked_at: "2026-11-03T10:00:00.000Z" } : t));
      return json(200, { success: true, data: tokens[0] });
    },
    ...overrides,
  });
}

describe("Releases", () => {
  it("is a console tab: releases with their state, artifacts and downloads per platform", async () => {
    releasesApi();
    renderAdmin("/admin?tab=releases");
    expect(await screen.findByRole("link", { name: "Releases" })).toHaveAttribute("aria-current", "page");
    const table = await screen.findByRole("table");
    const row = within(table).getAllByRole("row")[1]!;
    expect(row).toHaveTextContent("1.5.0");
    expect(row).toHaveTextContent("beta");
    expect(row).toHaveTextContent("published");
    expect(row).toHaveTextContent("macOS 40 · Windows 0 · Linux 2");
    expect(row).toHaveTextContent("Flotilla-1.5.0.dmg");
    expect(row).toHaveTextContent("3.0 MB");
  });

  it("the download switch is closed by default and opens a platform (one PUT)", async () => {
    const api = releasesApi();
    const { user } = renderAdmin("/admin?tab=releases");
    const mac = await screen.findByRole("switch", { name: "macOS downloads" });
    expect(mac).toHaveAttribute("aria-checked", "false");
    expect(screen.getByRole("switch", { name: "Windows downloads" })).toHaveAttribute("aria-checked", "false");
    await user.click(mac);
    await vi.waitFor(() => expect(mac).toHaveAttribute("aria-checked", "true"));
    expect(api.calls("PUT", "/api/admin/downloads/platforms/macos").map((c) => c.body)).toEqual([{ open: true }]);
    expect(screen.getByText(/Opened .* by ops@example.com/)).toBeInTheDocument();
  });

  it("yanks after a confirmation, with the reason", async () => {
    const api = releasesApi();
    const { user } = renderAdmin("/admin?tab=releases");
    await user.click(await screen.findByRole("button", { name: "Yank 1.5.0" }));
    const dialog = screen.getByRole("dialog", { name: "Yank 1.5.0?" });
    await user.type(within(dialog).getByLabelText(/Reason/), "crash on launch");
    await user.click(within(dialog).getByRole("button", { name: "Yank release" }));
    await vi.waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(api.calls("POST", `/api/admin/releases/${RELEASE_ID}/yank`).map((c) => c.body)).toEqual([
      { reason: "crash on launch" },
    ]);
    expect(await screen.findByText("yanked")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Yank 1.5.0" })).not.toBeInTheDocument();
  });

  it("promotes to another channel", async () => {
    const api = releasesApi();
    const { user } = renderAdmin("/admin?tab=releases");
    await user.click(await screen.findByRole("button", { name: "Promote 1.5.0" }));
    const dialog = screen.getByRole("dialog", { name: "Promote 1.5.0" });
    expect(
      within(dialog)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).not.toContain("beta");
    await user.click(within(dialog).getByRole("button", { name: "Move to stable" }));
    await vi.waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(api.calls("POST", `/api/admin/releases/${RELEASE_ID}/promote`).map((c) => c.body)).toEqual([
      { channel: "stable" },
    ]);
  });

  it("creates an operator token shown once, and revokes one after a confirmation", async () => {
    const api = releasesApi();
    const { user } = renderAdmin("/admin?tab=releases");
    await user.click(await screen.findByRole("button", { name: "Create token" }));
    const form = screen.getByRole("dialog", { name: "Create an operator token" });
    await user.click(within(form).getByRole("button", { name: "Create token" }));
    expect(within(form).getByRole("alert")).toHaveTextContent("Name the token");
    await user.type(within(form).getByLabelText("Name"), "GitHub Actions");
    await user.click(within(form).getByRole("button", { name: "Create token" }));
    const shown = await screen.findByRole("dialog", { name: "Operator token" });
    expect(shown).toHaveTextContent("flt_op_wxyz_secret_once");
    await user.click(within(shown).getByRole("button", { name: "I've stored it" }));
    expect(screen.queryByText("flt_op_wxyz_secret_once")).not.toBeInTheDocument();
    expect(api.calls("POST", "/api/admin/operator-tokens").map((c) => c.body)).toEqual([{ name: "GitHub Actions" }]);

    await user.click(screen.getByRole("button", { name: "Revoke CI" }));
    await user.click(
      within(screen.getByRole("dialog", { name: "Revoke CI?" })).getByRole("button", { name: "Revoke token" }),
    );
    expect(await screen.findByText(/^revoked /)).toBeInTheDocument();
    expect(api.calls("DELETE", `/api/admin/operator-tokens/${TOKEN.id}`)).toHaveLength(1);
  });

  it("says what the server refused", async () => {
    releasesApi({
      "PUT /api/admin/downloads/platforms/macos": () =>
        json(403, { success: false, error: "Admins only.", code: "FORBIDDEN" }),
    });
    const { user } = renderAdmin("/admin?tab=releases");
    await user.click(await screen.findByRole("switch", { name: "macOS downloads" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Admins only.");
    expect(screen.getByRole("switch", { name: "macOS downloads" })).toHaveAttribute("aria-checked", "false");
  });
});
