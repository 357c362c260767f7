/**
 * Artifact signatures (decision 0060): the streaming Ed25519 gives node:crypto's bytes, and the minisign signature
 * verifies the way Tauri's updater (minisign-verify) checks it — re-implemented here from the format's description,
 * independently of the module — and with the real `minisign` tool when it is installed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash, createPublicKey, randomBytes, sign, verify } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  generateReleaseSigningKey,
  loadReleaseSigningKey,
  minisignPublicKeyFile,
  parseMinisignSignature,
  parseReleasePublicKey,
  parseReleasePublicKeys,
  signArtifact,
  signEd25519Stream,
  verifyArtifact,
  verifyEd25519Stream,
  verifyMinisign,
  verifySparkle,
} from "./release-signing";

/** A file as a stream of odd-sized chunks, so nothing depends on chunk boundaries. */
function chunks(bytes: Buffer, size = 7_777): () => Iterable<Uint8Array> {
  return () => {
    const parts: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
    return parts;
  };
}

const sha = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest("hex");

describe("Ed25519 over a stream", () => {
  it("signs exactly as node:crypto does, and verifies what node:crypto signs", async () => {
    const key = generateReleaseSigningKey();
    for (const length of [0, 1, 63, 64, 65, 100_003]) {
      const bytes = randomBytes(length);
      const streamed = await signEd25519Stream(key, chunks(bytes));
      expect(streamed.equals(sign(null, bytes, key.privateKey))).toBe(true);
      expect(await verifyEd25519Stream(key.publicKey.raw, streamed, chunks(bytes)())).toBe(true);
    }
  });

  it("refuses a changed byte, another key, and a signature with S out of range", async () => {
    const key = generateReleaseSigningKey();
    const other = generateReleaseSigningKey();
    const bytes = randomBytes(10_000);
    const signature = sign(null, bytes, key.privateKey);
    const tampered = Buffer.from(bytes);
    tampered[5_000] = (tampered[5_000] as number) ^ 1;
    expect(await verifyEd25519Stream(key.publicKey.raw, signature, chunks(tampered)())).toBe(false);
    expect(await verifyEd25519Stream(other.publicKey.raw, signature, chunks(bytes)())).toBe(false);
    const big = Buffer.from(signature);
    big.fill(0xff, 32);
    expect(await verifyEd25519Stream(key.publicKey.raw, big, chunks(bytes)())).toBe(false);
  });
});

/** minisign-verify's check, written from minisign's format: what Tauri's updater runs on `signature`. */
function tauriVerifies(pubkeyBase64: string, signatureBase64: string, file: Buffer): boolean {
  const pubText = Buffer.from(pubkeyBase64, "base64").toString("utf8");
  const pubLine = pubText.trim().split("\n")[1] as string;
  const pub = Buffer.from(pubLine, "base64");
  if (pub.subarray(0, 2).toString() !== "Ed") return false;
  const [untrusted, sigLine, trusted, globalLine] = Buffer.from(signatureBase64, "base64").toString("utf8").split("\n");
  if (!untrusted?.startsWith("untrusted comment: ") || !trusted?.startsWith("trusted comment: ")) return false;
  const sig = Buffer.from(sigLine as string, "base64");
  if (sig.subarray(0, 2).toString() !== "ED") return false; // Tauri signs prehashed
  if (!sig.subarray(2, 10).equals(pub.subarray(2, 10))) return false; // key ids
  const publicKey = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: pub.subarray(10).toString("base64url") },
    format: "jwk",
  });
  const digest = createHash("blake2b512").update(file).digest();
  if (!verify(null, digest, publicKey, sig.subarray(10))) return false;
  const comment = Buffer.from(trusted.slice("trusted comment: ".length), "utf8");
  return verify(
    null,
    Buffer.concat([sig.subarray(10), comment]),
    publicKey,
    Buffer.from(globalLine as string, "base64"),
  );
}

describe("the two signatures of an artifact", () => {
  const key = generateReleaseSigningKey();
  const file = randomBytes(300_000);

  it("Sparkle's edSignature is base64 Ed25519 over the raw file, checked with SUPublicEDKey", async () => {
    const { signature } = await signArtifact(key, chunks(file), "Flotilla-1.2.0.dmg");
    const raw = Buffer.from(signature, "base64");
    expect(raw).toHaveLength(64);
    const sparklePublic = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(key.publicKey.sparkle, "base64").toString("base64url") },
      format: "jwk",
    });
    expect(verify(null, file, sparklePublic, raw)).toBe(true);
    expect(await verifySparkle([key.publicKey], signature, chunks(file))).toBe(key.publicKey);
  });

  it("Tauri's signature is a base64 minisign file that minisign-verify's checks accept, trusted comment included", async () => {
    const { minisign_signature } = await signArtifact(key, chunks(file), "Flotilla_1.2.0_x64.AppImage.tar.gz");
    const tauriPubkey = minisignPublicKeyFile(key.publicKey).tauri;
    expect(tauriVerifies(tauriPubkey, minisign_signature, file)).toBe(true);
    const parsed = parseMinisignSignature(minisign_signature);
    expect(parsed.algorithm).toBe("ED");
    expect(parsed.trustedComment).toMatch(/^timestamp:\d+\tfile:Flotilla_1\.2\.0_x64\.AppImage\.tar\.gz$/);
    expect(await verifyMinisign([key.publicKey], minisign_signature, chunks(file))).toBe(key.publicKey);

    // A changed trusted comment breaks the global signature; a changed file breaks the digest's.
    const text = Buffer.from(minisign_signature, "base64").toString("utf8");
    const forged = Buffer.from(text.replace("file:Flotilla", "file:Evil"), "utf8").toString("base64");
    expect(tauriVerifies(tauriPubkey, forged, file)).toBe(false);
    expect(await verifyMinisign([key.publicKey], forged, chunks(file))).toBeNull();
    const tampered = Buffer.from(file);
    tampered[0] = (tampered[0] as number) ^ 0xff;
    expect(tauriVerifies(tauriPubkey, minisign_signature, tampered)).toBe(false);
    expect(await verifyMinisign([key.publicKey], minisign_signature, chunks(tampered))).toBeNull();
  });

  it("verifyArtifact checks size, both checksums and both signatures in one pass, naming what failed", async () => {
    const signed = await signArtifact(key, chunks(file), "app.tar.gz");
    const expected = { size: file.length, sha256: sha("sha256", file), sha512: sha("sha512", file), ...signed };
    const other = generateReleaseSigningKey();
    expect((await verifyArtifact([other.publicKey, key.publicKey], expected, chunks(file)())).ok).toBe(true);
    expect(await verifyArtifact([key.publicKey], { ...expected, size: file.length + 1 }, chunks(file)())).toMatchObject(
      {
        ok: false,
        reason: "size",
      },
    );
    expect(
      await verifyArtifact([key.publicKey], { ...expected, sha256: "0".repeat(64) }, chunks(file)()),
    ).toMatchObject({
      ok: false,
      reason: "checksum",
    });
    expect(await verifyArtifact([other.publicKey], expected, chunks(file)())).toMatchObject({
      ok: false,
      reason: "signature",
    });
    const signedByOther = await signArtifact(other, chunks(file), "app.tar.gz");
    expect(
      await verifyArtifact(
        [key.publicKey],
        { ...expected, minisign_signature: signedByOther.minisign_signature },
        chunks(file)(),
      ),
    ).toMatchObject({ ok: false, reason: "minisign" });
  });
});

describe("public keys as operators paste them", () => {
  it("reads minisign's key line, a whole .pub file, Tauri's base64 of it, and Sparkle's raw key", () => {
    const key = loadReleaseSigningKey(generateReleaseSigningKey().pem, "0123456789ABCDEF");
    const file = minisignPublicKeyFile(key.publicKey);
    expect(key.publicKey.keyId).toBe("0123456789ABCDEF");
    expect(file.text).toContain("minisign public key 0123456789ABCDEF");
    for (const form of [key.publicKey.minisign as string, file.text, file.tauri]) {
      const parsed = parseReleasePublicKey(form);
      expect(parsed.raw.equals(key.publicKey.raw)).toBe(true);
      expect(parsed.keyId).toBe("0123456789ABCDEF");
    }
    const sparkle = parseReleasePublicKey(key.publicKey.sparkle);
    expect(sparkle.raw.equals(key.publicKey.raw)).toBe(true);
    expect(sparkle.keyId).toBeNull();
    expect(parseReleasePublicKeys(`${key.publicKey.minisign}, ${file.tauri}`)).toHaveLength(2);
    expect(() => parseReleasePublicKey("not a key")).toThrow();
  });
});

const minisignInstalled = spawnSync("minisign", ["-v"]).status === 0;

describe.skipIf(!minisignInstalled)("the real minisign tool", () => {
  it("verifies our signature file with our public key file (-V), as Tauri's updater would", async () => {
    const key = generateReleaseSigningKey();
    const dir = mkdtempSync(join(tmpdir(), "flotilla-minisign-"));
    const bytes = randomBytes(50_000);
    writeFileSync(join(dir, "app.tar.gz"), bytes);
    const { minisign_signature } = await signArtifact(key, chunks(bytes), "app.tar.gz");
    writeFileSync(join(dir, "app.tar.gz.minisig"), Buffer.from(minisign_signature, "base64"));
    writeFileSync(join(dir, "key.pub"), minisignPublicKeyFile(key.publicKey).text);
    const out = execFileSync("minisign", ["-V", "-p", join(dir, "key.pub"), "-m", join(dir, "app.tar.gz")], {
      encoding: "utf8",
    });
    expect(out).toContain("Signature and comment signature verified");
    writeFileSync(join(dir, "app.tar.gz"), Buffer.concat([bytes, Buffer.from("x")]));
    expect(spawnSync("minisign", ["-V", "-p", join(dir, "key.pub"), "-m", join(dir, "app.tar.gz")]).status).not.toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});
