/** The license card's Download button and the download switch (issue 36). */
import type { License } from "@flotilla/contracts/licensing";
import { QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createPortalQueryClient } from "../../lib/query-client";
import { detectPlatform, downloadNavigator, pickArtifact } from "./downloads";
import { LicenseCard } from "./license-card";

const KEY = "FLOT-ABCDE-FGHJK-MNPQR-STVWX-YZ012";
const LICENSE: License = {
  id: "lic-1",
  license_key: KEY,
  tier: "free",
  status: "active",
  machine_id: null,
  expires_at: null,
  last_seen: null,
  max_machines: 3,
  created_at: "2025-06-01T12:00:00Z",
  features: { maxConcurrentExecutions: 1, sharedMemory: false, backups: false, embeddingModels: false },
  refused_activations: [],
  previous_key_valid_until: null,
  offline_files_allowed: false,
  executions: { limit: 1, running: [] },
};
const MAC_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1.15";

const fetchMock = vi.fn<typeof fetch>();
const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

function downloads(options: { open: boolean; url?: string; licenseKey?: string | null }) {
  return {
    success: true,
    data: {
      license_key: options.licenseKey === undefined ? KEY : options.licenseKey,
      platforms: [
        {
          platform: "macos",
          open: options.open,
          release: options.open
            ? { id: "rel-1", version: "1.4.0", channel: "stable", published_at: "2026-11-01T00:00:00Z" }
            : null,
          artifacts: options.open
            ? [
                {
                  id: "art-1",
                  arch: "universal",
                  filename: "Flotilla-1.4.0-macos-universal.dmg",
                  size: 88_300_000,
                  sha256: "a".repeat(64),
                  download: { url: options.url ?? "/api/downloads/first", expires_at: "2026-11-28T22:15:00Z" },
                },
              ]
            : [],
        },
        { platform: "windows", open: false, release: null, artifacts: [] },
        { platform: "linux", open: false, release: null, artifacts: [] },
      ],
    },
  };
}

let answers: unknown[];
beforeEach(() => {
  localStorage.setItem("auth_token", "good-token");
  vi.spyOn(navigator, "userAgent", "get").mockReturnValue(MAC_UA);
  fetchMock.mockReset();
  fetchMock.mockImplementation(async (input) => {
    if (String(input) === "/api/customer/downloads") return json(answers.length > 1 ? answers.shift() : answers[0]);
    return json({ success: true, data: { current_count: 0, max_machines: 3, machines: [] } });
  });
  vi.stubGlobal("fetch", fetchMock);
});
afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function renderCard() {
  render(
    <MemoryRouter>
      <QueryClientProvider client={createPortalQueryClient()}>
        <LicenseCard license={LICENSE} />
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return screen.getByRole("article");
}

describe("the license card's Download button", () => {
  it("stays the spec's coming-soon message while the operator has not opened the visitor's platform", async () => {
    answers = [downloads({ open: false })];
    const go = vi.spyOn(downloadNavigator, "go").mockImplementation(() => {});
    const card = renderCard();
    await waitFor(() =>
      expect(fetchMock.mock.calls.some((call) => String(call[0]) === "/api/customer/downloads")).toBe(true),
    );
    await userEvent.click(within(card).getByRole("button", { name: "Download" }));
    expect(await within(card).findByRole("alert")).toHaveTextContent("License download is coming soon!");
    expect(card.querySelector("[data-download-version]")).toBeNull();
    expect(go).not.toHaveBeenCalled();
  });

  it("once open, says which version it gets and downloads it through a fresh link", async () => {
    answers = [
      downloads({ open: true, url: "/api/downloads/first" }),
      downloads({ open: true, url: "/api/downloads/fresh" }),
    ];
    const go = vi.spyOn(downloadNavigator, "go").mockImplementation(() => {});
    const card = renderCard();
    const caption = await within(card).findByText(/Download gets Flotilla 1\.4\.0 for macOS/);
    expect(caption).toHaveTextContent("Flotilla-1.4.0-macos-universal.dmg, 84.2 MB.");
    const button = within(card).getByRole("button", { name: "Download" });
    expect(button).toHaveAccessibleDescription(/Flotilla 1\.4\.0 for macOS/);
    await userEvent.click(button);
    await waitFor(() => expect(go).toHaveBeenCalledWith("/api/downloads/fresh"));
    expect(within(card).queryByRole("alert")).toBeNull();
  });

  it("never offers the downloads of another license than this card's", async () => {
    answers = [downloads({ open: true, licenseKey: "FLOT-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ" })];
    const go = vi.spyOn(downloadNavigator, "go").mockImplementation(() => {});
    const card = renderCard();
    await waitFor(() =>
      expect(fetchMock.mock.calls.some((call) => String(call[0]) === "/api/customer/downloads")).toBe(true),
    );
    await userEvent.click(within(card).getByRole("button", { name: "Download" }));
    expect(await within(card).findByRole("alert")).toHaveTextContent("License download is coming soon!");
    expect(go).not.toHaveBeenCalled();
  });
});

describe("which build fits", () => {
  it("tells desktops apart and offers nothing to a phone", () => {
    expect(detectPlatform({ userAgent: MAC_UA, platform: "MacIntel" })).toBe("macos");
    expect(detectPlatform({ userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64)", platform: "Win32" })).toBe(
      "windows",
    );
    expect(detectPlatform({ userAgent: "Mozilla/5.0 (X11; Linux x86_64)", platform: "Linux x86_64" })).toBe("linux");
    expect(detectPlatform({ userAgentData: { platform: "macOS", mobile: false } })).toBe("macos");
    expect(
      detectPlatform({ userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)", platform: "iPhone" }),
    ).toBeNull();
    expect(detectPlatform({ userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8)" })).toBeNull();
    expect(detectPlatform(undefined)).toBeNull();
  });

  it("prefers a universal build, then x86_64; nothing while closed", () => {
    const artifact = (arch: "universal" | "x86_64" | "aarch64") => ({
      id: arch,
      arch,
      filename: `f-${arch}`,
      size: 1,
      sha256: "a".repeat(64),
      download: { url: `/d/${arch}`, expires_at: "" },
    });
    const release = { id: "r", version: "1.0.0", channel: "stable" as const, published_at: "" };
    expect(
      pickArtifact({ platform: "linux", open: true, release, artifacts: [artifact("aarch64"), artifact("x86_64")] })
        ?.arch,
    ).toBe("x86_64");
    expect(
      pickArtifact({ platform: "macos", open: true, release, artifacts: [artifact("aarch64"), artifact("universal")] })
        ?.arch,
    ).toBe("universal");
    expect(pickArtifact({ platform: "macos", open: false, release, artifacts: [artifact("universal")] })).toBeNull();
  });
});
