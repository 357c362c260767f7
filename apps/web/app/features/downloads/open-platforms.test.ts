import { RELEASE_PATHS } from "@flotilla/contracts/releases";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PlatformsSection } from "../marketing/platforms-section";
import { applyOpenPlatforms, PUBLIC_PLATFORMS_PATH, readOpenPlatforms } from "./open-platforms";

function cards() {
  const root = document.createElement("div");
  root.innerHTML = renderToStaticMarkup(createElement(PlatformsSection, { onJoin: () => {} }));
  const list = root.querySelector<HTMLElement>('[data-island="platforms"]');
  if (!list) throw new Error("no platforms island");
  const card = (name: string) =>
    [...list.querySelectorAll<HTMLElement>("li")].find((li) => li.querySelector("h3")?.textContent === name)!;
  return { list, card };
}

describe("home page platform cards and the download switch", () => {
  it("keeps exactly the spec's text while every switch is off", () => {
    const { list, card } = cards();
    expect(applyOpenPlatforms(list, new Set())).toBe(0);
    expect(card("macOS Desktop").textContent).toContain("Join Beta");
    expect(card("macOS Desktop").querySelector("button")?.textContent).toBe("Join Beta");
    expect(card("Windows Desktop").textContent).toContain("Q1 2026");
    expect(card("Windows Desktop").textContent).toContain("Coming Soon");
    expect(card("Web Application").textContent).toContain("Coming Soon");
    expect(card("Web Application").dataset.platform).toBeUndefined();
  });

  it("turns an open platform's card into Available / Get it, leading to the portal; the others stay", () => {
    const { list, card } = cards();
    expect(applyOpenPlatforms(list, new Set(["windows"]))).toBe(1);
    const windows = card("Windows Desktop");
    expect(windows.dataset.status).toBe("available");
    expect(windows.querySelector("[data-platform-label]")?.textContent).toBe("Available");
    const link = windows.querySelector<HTMLAnchorElement>("a[data-platform-action]");
    expect(link?.textContent).toBe("Get it");
    expect(link?.getAttribute("href")).toBe("/dashboard");
    expect(windows.textContent).not.toContain("Coming Soon");
    expect(card("macOS Desktop").querySelector("button")?.textContent).toBe("Join Beta");
    expect(card("Web Application").textContent).toContain("Coming Soon");
    // Applying again changes nothing (the island may run twice on a bfcache restore).
    expect(applyOpenPlatforms(list, new Set(["windows"]))).toBe(0);
  });

  it("asks the contracts' public platforms path", () => {
    expect(PUBLIC_PLATFORMS_PATH).toBe(RELEASE_PATHS.publicPlatforms);
  });

  it("reads only the documented answer: forged or broken answers open nothing", () => {
    expect(
      readOpenPlatforms({
        success: true,
        data: [
          { platform: "macos", open: true },
          { platform: "windows", open: false },
          { platform: "linux", open: "true" },
          { platform: "web", open: true },
          null,
        ],
      }),
    ).toEqual(new Set(["macos"]));
    expect(readOpenPlatforms({ success: false, data: [{ platform: "macos", open: true }] }).size).toBe(0);
    expect(readOpenPlatforms("<html>").size).toBe(0);
    expect(readOpenPlatforms(null).size).toBe(0);
  });
});
