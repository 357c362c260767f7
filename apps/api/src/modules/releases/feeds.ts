/**
 * Sparkle's appcast (RSS 2.0 with Sparkle's namespace), as Sparkle 2 reads it: per item `sparkle:version` (compared
 * with the app's CFBundleVersion, so builds set it to the same semantic version), `sparkle:shortVersionString`,
 * `sparkle:channel` for anything but stable (an app opts in with allowedChannels), the release notes, and an
 * enclosure with `length`, `type` and `sparkle:edSignature` (base64 Ed25519 over the file, checked against the
 * app's SUPublicEDKey).
 */
import type { PublishedEntry } from "./service";

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] ?? c);

export const SPARKLE_NS = "http://www.andymatuschak.org/xml-namespaces/sparkle";

export function appcast(origin: string, offers: PublishedEntry[]): string {
  const items = offers.flatMap(({ release, artifacts }) => {
    const artifact = artifacts[0];
    if (!artifact) return [];
    const published = (release.publishedAt ?? release.createdAt).toUTCString();
    const lines = [
      "    <item>",
      `      <title>${escapeXml(`Version ${release.version}`)}</title>`,
      `      <pubDate>${escapeXml(published)}</pubDate>`,
      `      <sparkle:version>${escapeXml(release.version)}</sparkle:version>`,
      `      <sparkle:shortVersionString>${escapeXml(release.version)}</sparkle:shortVersionString>`,
      ...(release.channel !== "stable"
        ? [`      <sparkle:channel>${escapeXml(release.channel)}</sparkle:channel>`]
        : []),
      `      <sparkle:releaseNotesLink>${escapeXml(`${origin}/docs/release-notes#v${release.version}`)}</sparkle:releaseNotesLink>`,
      `      <description>${escapeXml(release.notes)}</description>`,
      `      <enclosure url="${escapeXml(`${origin}/api/license/updates/artifacts/${artifact.id}/download`)}" length="${artifact.size}" type="application/octet-stream" sparkle:edSignature="${escapeXml(artifact.signature)}"/>`,
      "    </item>",
    ];
    return lines;
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<rss version="2.0" xmlns:sparkle="${SPARKLE_NS}" xmlns:dc="http://purl.org/dc/elements/1.1/">`,
    "  <channel>",
    "    <title>Flotilla</title>",
    `    <link>${escapeXml(origin)}</link>`,
    "    <description>Flotilla for macOS</description>",
    "    <language>en</language>",
    ...items,
    "  </channel>",
    "</rss>",
    "",
  ].join("\n");
}
