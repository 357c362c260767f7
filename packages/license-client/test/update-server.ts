/**
 * What the update tests download from: a loopback HTTP server serving one artifact's bytes under /files/<name>,
 * with Range support, a switch to cut the connection mid-file, and a switch to answer 410 (a yanked release's link).
 * Also builds a signed Update the way the API's update check answers one.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import {
  generateReleaseSigningKey,
  minisignPublicKeyFile,
  type ReleaseSigningKey,
  signArtifact,
} from "@flotilla/contracts/release-signing";
import type { Update } from "@flotilla/contracts/releases";

export interface ArtifactServer {
  url: string;
  /** Bytes served per name (replace one to serve tampered bytes). */
  files: Map<string, Buffer>;
  requests: { path: string; headers: IncomingHttpHeaders }[];
  /** The next N responses stop after this many bytes (the connection is destroyed). */
  cutAfter: { bytes: number; times: number } | null;
  /** Every request answers 410 LINK_EXPIRED (the release was yanked). */
  gone: boolean;
  close(): Promise<void>;
}

export async function startArtifactServer(): Promise<ArtifactServer> {
  const state: Omit<ArtifactServer, "url" | "close"> = { files: new Map(), requests: [], cutAfter: null, gone: false };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    state.requests.push({ path, headers: req.headers });
    const bytes = state.files.get(path.replace(/^\/files\//, ""));
    if (state.gone || !bytes) {
      res.writeHead(state.gone ? 410 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify({ success: false, error: "This download link has expired.", code: "LINK_EXPIRED" }));
      return;
    }
    const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const start = match ? Number(match[1]) : 0;
    if (start >= bytes.length) {
      res.writeHead(416, { "content-range": `bytes */${bytes.length}` });
      res.end();
      return;
    }
    const body = bytes.subarray(start);
    res.writeHead(match ? 206 : 200, {
      "content-type": "application/octet-stream",
      "content-length": String(body.length),
      "accept-ranges": "bytes",
      ...(match ? { "content-range": `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {}),
    });
    const cut = state.cutAfter;
    if (cut && cut.times > 0) {
      cut.times -= 1;
      res.write(body.subarray(0, cut.bytes), () => {
        // Let the client read the bytes, then drop the connection mid-file.
        setTimeout(() => res.destroy(), 20);
      });
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const result = state as ArtifactServer;
  result.url = `http://127.0.0.1:${port}`;
  result.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return result;
}

/** A release key as `release keygen` makes one, and the public key strings an app would embed. */
export function releaseKey(): { key: ReleaseSigningKey; sparkle: string; tauri: string } {
  const key = generateReleaseSigningKey();
  return { key, sparkle: key.publicKey.sparkle, tauri: minisignPublicKeyFile(key.publicKey).tauri };
}

/** An update for `bytes`, signed with `key`, downloadable from `url`. */
export async function signedUpdate(
  key: ReleaseSigningKey,
  bytes: Buffer,
  url: string,
  version = "1.3.0",
): Promise<Update> {
  const filename = `Flotilla-${version}.dmg`;
  const signatures = await signArtifact(key, () => [bytes], filename);
  return {
    release_id: "11111111-1111-4111-8111-111111111111",
    version,
    channel: "stable",
    notes: `## ${version}\n\n- Faster`,
    published_at: new Date().toISOString(),
    artifact: {
      id: "22222222-2222-4222-8222-222222222222",
      release_id: "11111111-1111-4111-8111-111111111111",
      platform: "macos",
      arch: "universal",
      filename,
      size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      sha512: createHash("sha512").update(bytes).digest("hex"),
      ...signatures,
    },
    download: { url, expires_at: new Date(Date.now() + 300_000).toISOString() },
  };
}

export const artifactBytes = (n: number) => randomBytes(n);
