/**
 * The per-platform download switch as the public sees it (issue 36): `GET /api/downloads/platforms`. Kept free of
 * zod and React so the home page's island stays a few hundred bytes (decision 0050's budget).
 */
import { buttonClass } from "../../components/button";

/** RELEASE_PATHS.publicPlatforms, written out: importing the contracts' releases module would ship zod (a test pins it). */
export const PUBLIC_PLATFORMS_PATH = "/api/downloads/platforms";

export type DownloadPlatform = "macos" | "windows" | "linux";

/** Which of the home page's platform cards a release platform opens (the Web Application has no build). */
export const CARD_PLATFORM: Readonly<Record<string, DownloadPlatform>> = {
  "macOS Desktop": "macos",
  "Windows Desktop": "windows",
};

/** The open platforms, or an empty set when the answer is missing or not the documented shape. */
export function readOpenPlatforms(json: unknown): Set<DownloadPlatform> {
  const open = new Set<DownloadPlatform>();
  const data = (json as { success?: unknown; data?: unknown } | null)?.data;
  if ((json as { success?: unknown } | null)?.success !== true || !Array.isArray(data)) return open;
  for (const item of data) {
    const { platform, open: isOpen } = (item ?? {}) as { platform?: unknown; open?: unknown };
    if (isOpen === true && (platform === "macos" || platform === "windows" || platform === "linux")) open.add(platform);
  }
  return open;
}

export async function fetchOpenPlatforms(timeoutMs = 5_000): Promise<Set<DownloadPlatform>> {
  const response = await fetch(PUBLIC_PLATFORMS_PATH, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) return new Set();
  return readOpenPlatforms(await response.json().catch(() => null));
}

/** What an open platform's card says: available, and "Get it" leads to the portal, where the build is downloaded. */
export const OPEN_CARD = { label: "Available", action: "Get it", href: "/dashboard" } as const;

/**
 * Turns the cards (`li[data-platform]` under `root`) whose platform is open into their download state; the others
 * keep the prerendered text, which is the spec's. Returns how many cards changed.
 */
export function applyOpenPlatforms(root: ParentNode, open: ReadonlySet<DownloadPlatform>): number {
  let changed = 0;
  for (const card of root.querySelectorAll<HTMLElement>("li[data-platform]")) {
    const platform = card.dataset.platform as DownloadPlatform;
    if (!open.has(platform) || card.dataset.status === "available") continue;
    card.dataset.status = "available";
    const badge = card.querySelector<HTMLElement>("[data-platform-label]");
    if (badge) {
      badge.textContent = OPEN_CARD.label;
      badge.className =
        "rounded-full px-2.5 py-0.5 text-xs font-medium bg-emerald-500/10 text-emerald-700 dark:text-emerald-300";
    }
    const action = card.querySelector<HTMLElement>("[data-platform-action]");
    if (action) {
      const link = document.createElement("a");
      link.href = OPEN_CARD.href;
      link.className = buttonClass("primary", "md", "mt-6 w-full");
      link.dataset.platformAction = "download";
      link.textContent = OPEN_CARD.action;
      action.replaceWith(link);
    }
    changed += 1;
  }
  return changed;
}
