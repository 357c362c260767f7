/**
 * The portal's downloads (issue 36): `GET /api/customer/downloads` answers, per platform the operator has opened,
 * the newest build this customer's license may have, with download links that live 5 minutes. The license card's
 * Download button uses it for the visitor's own platform; until that platform is open it stays the spec's
 * coming-soon message.
 */
import { CustomerDownloadsAnswerSchema, RELEASE_PATHS } from "@flotilla/contracts/releases";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { get } from "../../lib/http";
import { readStoredToken } from "../../lib/token-storage";

export type CustomerDownloads = z.infer<typeof CustomerDownloadsAnswerSchema>["data"];
export type PlatformDownload = CustomerDownloads["platforms"][number];
export type DownloadPlatform = PlatformDownload["platform"];
export type DownloadArtifact = PlatformDownload["artifacts"][number];

export const PLATFORM_NAMES: Record<DownloadPlatform, string> = { macos: "macOS", windows: "Windows", linux: "Linux" };

export const downloadsQueryKey = ["customer", "downloads"] as const;

export async function fetchDownloads(signal?: AbortSignal): Promise<CustomerDownloads> {
  const answer = CustomerDownloadsAnswerSchema.safeParse(
    await get<unknown>(RELEASE_PATHS.customerDownloads, { signal }),
  );
  if (!answer.success) throw new Error("Unexpected answer from the downloads endpoint");
  return answer.data.data;
}

export const downloadsQuery = () =>
  queryOptions({
    queryKey: downloadsQueryKey,
    queryFn: ({ signal }) => fetchDownloads(signal),
    // Links expire after 5 minutes: a click asks again anyway (useDownloads' `fresh`).
    staleTime: 60_000,
    // No retry: the button is the spec's coming-soon message meanwhile, and a click asks again.
    retry: false,
    enabled: Boolean(readStoredToken()),
  });

/** The platform this browser runs on, or null (a phone, a tablet, or an unknown system: no desktop build fits). */
export function detectPlatform(
  nav: { userAgent?: string; platform?: string; userAgentData?: { platform?: string; mobile?: boolean } } | undefined,
): DownloadPlatform | null {
  if (!nav) return null;
  const ua = nav.userAgent ?? "";
  if (nav.userAgentData?.mobile || /iPhone|iPad|iPod|Android/i.test(ua) || /iPhone|iPad/i.test(nav.platform ?? "")) {
    return null;
  }
  const text = `${nav.userAgentData?.platform ?? ""} ${nav.platform ?? ""} ${ua}`;
  if (/mac/i.test(text)) return "macos";
  if (/win/i.test(text)) return "windows";
  if (/linux|x11|cros/i.test(text)) return "linux";
  return null;
}

const ARCH_PREFERENCE = ["universal", "x86_64", "aarch64"] as const;

/** The build to offer: a universal one first, else x86_64 (what most desktops run), else any. */
export function pickArtifact(download: PlatformDownload | undefined): DownloadArtifact | null {
  if (!download?.open || !download.release) return null;
  for (const arch of ARCH_PREFERENCE) {
    const found = download.artifacts.find((artifact) => artifact.arch === arch);
    if (found) return found;
  }
  return null;
}

/** How the browser is sent to a link (a seam for tests: jsdom does not navigate). */
export const downloadNavigator = { go: (url: string) => window.location.assign(url) };

/** This license's build for `platform` when downloads are open for it, and a way to start it with a fresh link. */
export function useDownload(licenseKey: string, platform: DownloadPlatform | null) {
  const client = useQueryClient();
  const query = useQuery(downloadsQuery());
  const data = query.data;
  const entry =
    platform && data && data.license_key === licenseKey
      ? data.platforms.find((candidate) => candidate.platform === platform)
      : undefined;
  const artifact = pickArtifact(entry);
  const release = artifact ? (entry?.release ?? null) : null;
  /** Asks again (the link lives 5 minutes) and follows the fresh link to the same build, else the newest one. */
  const start = async () => {
    const fresh = await client.fetchQuery({ ...downloadsQuery(), staleTime: 0 });
    const again = pickArtifact(fresh.platforms.find((candidate) => candidate.platform === platform));
    if (!again) return false;
    downloadNavigator.go(again.download.url);
    return true;
  };
  return { release, artifact, start };
}
