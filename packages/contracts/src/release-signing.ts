/**
 * Artifact signatures (decision 0060), shared by the API (verifies on upload completion) and the SDK/CLI (signs in
 * `release publish`, verifies before an update is written to its final place). Node only (node:crypto); not
 * exported from the package index, import `@flotilla/contracts/release-signing`.
 *
 * One Ed25519 key pair, NOT the license signing key, held by the operator (a CI secret), makes two signatures per
 * artifact, in the formats the updaters read:
 * - Sparkle (`sparkle:edSignature`): base64 of the Ed25519 signature over the file's raw bytes; the app embeds the
 *   raw 32-byte public key, base64, as `SUPublicEDKey`.
 * - Tauri (`signature` in its update JSON): base64 of a minisign signature file. Minisign's "ED" algorithm signs
 *   the BLAKE2b-512 digest of the file; the file's fourth line signs (signature ‖ trusted comment), so the trusted
 *   comment cannot be changed either. The app embeds the minisign public key file, base64 (Tauri's `pubkey`).
 *
 * Ed25519 over a file is computed streaming (never the whole file in memory): verification hashes R ‖ A ‖ M in one
 * pass and checks [S]B = R + [k]A; signing makes the two passes Ed25519 needs (r from the key's prefix and M, then
 * k). The results are byte-for-byte those of node:crypto's sign/verify (tests compare them).
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";

/** A stream of the file's bytes: a Node readable, a web stream's async iterator, or a list of chunks. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const Point = ed25519.Point;

const littleEndian = (bytes: Uint8Array): bigint => {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i] as number);
  return value;
};
const toLittleEndian32 = (value: bigint): Buffer => {
  const out = Buffer.alloc(32);
  let rest = value;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
};
const mod = (value: bigint, modulus: bigint) => ((value % modulus) + modulus) % modulus;

async function hashStream(prefix: Uint8Array[], source: ByteSource, algorithm: string): Promise<Buffer> {
  const hash = createHash(algorithm);
  for (const part of prefix) hash.update(part);
  for await (const chunk of source) hash.update(chunk);
  return hash.digest();
}

/** A public key the server and apps trust: its raw bytes and its minisign key id (8 bytes, as stored). */
export interface ReleasePublicKey {
  /** 32 raw bytes, base64: Sparkle's SUPublicEDKey. */
  sparkle: string;
  /** Minisign's public key line (base64 of "Ed" ‖ key id ‖ key); null for a raw key given without an id. */
  minisign: string | null;
  /** The key id as minisign prints it (upper-case hex of the little-endian id); null without one. */
  keyId: string | null;
  raw: Buffer;
  keyIdBytes: Buffer | null;
}

const MINISIGN_KEY_BYTES = 2 + 8 + 32;

/**
 * Reads one public key as an operator may paste it: minisign's public key line (`RW…`), a whole minisign `.pub`
 * file, Tauri's `pubkey` (that file, base64), or Sparkle's SUPublicEDKey (32 raw bytes, base64).
 */
export function parseReleasePublicKey(text: string): ReleasePublicKey {
  let value = text.trim();
  if (!value.includes("\n") && !value.startsWith("RW")) {
    const decoded = Buffer.from(value, "base64");
    const asText = decoded.toString("utf8");
    if (asText.startsWith("untrusted comment:")) value = asText.trim();
    else if (decoded.length === 32) return fromRaw(decoded, null);
  }
  const lines = value.split(/\r?\n/).map((line) => line.trim());
  const keyLine = lines.find((line) => line.length > 0 && !line.startsWith("untrusted comment:"));
  if (!keyLine) throw new Error("release public key: no key line");
  const bytes = Buffer.from(keyLine, "base64");
  if (bytes.length !== MINISIGN_KEY_BYTES || bytes.subarray(0, 2).toString("latin1") !== "Ed") {
    throw new Error("release public key: not a minisign Ed25519 public key nor 32 raw bytes in base64");
  }
  return fromRaw(bytes.subarray(10), bytes.subarray(2, 10));
}

function fromRaw(raw: Buffer, keyIdBytes: Buffer | null): ReleasePublicKey {
  return {
    raw: Buffer.from(raw),
    keyIdBytes: keyIdBytes ? Buffer.from(keyIdBytes) : null,
    sparkle: raw.toString("base64"),
    minisign: keyIdBytes ? Buffer.concat([Buffer.from("Ed", "latin1"), keyIdBytes, raw]).toString("base64") : null,
    keyId: keyIdBytes ? Buffer.from(keyIdBytes).reverse().toString("hex").toUpperCase() : null,
  };
}

/** RELEASE_PUBLIC_KEYS: keys separated by commas (a key may be a whole base64 `.pub` file). */
export function parseReleasePublicKeys(list: string): ReleasePublicKey[] {
  return list
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .map(parseReleasePublicKey);
}

/** The minisign public key file's text, and Tauri's `pubkey` (that text, base64). */
export function minisignPublicKeyFile(key: ReleasePublicKey): { text: string; tauri: string } {
  if (!key.minisign || !key.keyId) throw new Error("this key has no minisign key id");
  const text = `untrusted comment: minisign public key ${key.keyId}\n${key.minisign}\n`;
  return { text, tauri: Buffer.from(text, "utf8").toString("base64") };
}

/** The operator's signing key: Ed25519 (PKCS#8 PEM) and its minisign key id. */
export interface ReleaseSigningKey {
  privateKey: KeyObject;
  keyIdBytes: Buffer;
  publicKey: ReleasePublicKey;
}

const rawPublicKey = (key: KeyObject): Buffer =>
  Buffer.from(createPublicKey(key).export({ format: "jwk" }).x as string, "base64url");
const rawSeed = (key: KeyObject): Buffer => Buffer.from(key.export({ format: "jwk" }).d as string, "base64url");

/** The key id when none is given: the first 8 bytes of SHA-256 of the public key (stable for one key). */
export function defaultKeyId(raw: Buffer): Buffer {
  return createHash("sha256").update(raw).digest().subarray(0, 8);
}

/** From RELEASE_SIGNING_KEY (PKCS#8 PEM, or it base64) and an optional key id (16 hex digits, as minisign prints it). */
export function loadReleaseSigningKey(pem: string, keyIdHex?: string | null): ReleaseSigningKey {
  const text = pem.includes("BEGIN") ? pem : Buffer.from(pem, "base64").toString("utf8");
  const privateKey = createPrivateKey(text);
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error("release signing key: not an Ed25519 key");
  const raw = rawPublicKey(privateKey);
  let keyIdBytes = defaultKeyId(raw);
  if (keyIdHex) {
    if (!/^[0-9a-fA-F]{16}$/.test(keyIdHex)) throw new Error("release key id: 16 hex digits");
    keyIdBytes = Buffer.from(keyIdHex, "hex").reverse();
  }
  return { privateKey, keyIdBytes, publicKey: fromRaw(raw, keyIdBytes) };
}

/** A new key pair (development, tests, `release keygen`). */
export function generateReleaseSigningKey(): ReleaseSigningKey & { pem: string } {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  return { ...loadReleaseSigningKey(pem), pem };
}

/** Ed25519 over a stream, two passes (the source is read twice: give a function that opens it). */
export async function signEd25519Stream(key: ReleaseSigningKey, open: () => ByteSource): Promise<Buffer> {
  const h = createHash("sha512").update(rawSeed(key.privateKey)).digest();
  const scalarBytes = Buffer.from(h.subarray(0, 32));
  scalarBytes[0] = (scalarBytes[0] as number) & 248;
  scalarBytes[31] = ((scalarBytes[31] as number) & 127) | 64;
  const a = littleEndian(scalarBytes);
  const prefix = h.subarray(32);
  const A = key.publicKey.raw;
  const r = mod(littleEndian(await hashStream([prefix], open(), "sha512")), L);
  const R = Buffer.from(Point.BASE.multiply(r === 0n ? L : r).toBytes());
  const k = mod(littleEndian(await hashStream([R, A], open(), "sha512")), L);
  const S = mod(r + k * a, L);
  return Buffer.concat([R, toLittleEndian32(S)]);
}

/** Ed25519 verification over a stream in one pass (RFC 8032's cofactorless check, as node:crypto's). */
export async function verifyEd25519Stream(publicKey: Buffer, signature: Buffer, source: ByteSource): Promise<boolean> {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const Rbytes = signature.subarray(0, 32);
  const S = littleEndian(signature.subarray(32));
  if (S >= L) return false;
  let A: InstanceType<typeof Point>;
  let R: InstanceType<typeof Point>;
  try {
    A = Point.fromBytes(publicKey);
    R = Point.fromBytes(Rbytes);
  } catch {
    return false;
  }
  const k = mod(littleEndian(await hashStream([Rbytes, publicKey], source, "sha512")), L);
  const left = S === 0n ? Point.ZERO : Point.BASE.multiply(S);
  const kA = k === 0n ? Point.ZERO : A.multiply(k);
  return left.equals(R.add(kA));
}

/** The Sparkle signature (`sparkle:edSignature`): base64 Ed25519 over the raw file. */
export async function signSparkle(key: ReleaseSigningKey, open: () => ByteSource): Promise<string> {
  return (await signEd25519Stream(key, open)).toString("base64");
}

export async function verifySparkle(keys: ReleasePublicKey[], signatureB64: string, open: () => ByteSource) {
  const signature = Buffer.from(signatureB64, "base64");
  for (const key of keys) if (await verifyEd25519Stream(key.raw, signature, open())) return key;
  return null;
}

/** BLAKE2b-512 of the file: what minisign's "ED" (prehashed) signatures sign. */
export function blake2b512(source: ByteSource): Promise<Buffer> {
  return hashStream([], source, "blake2b512");
}

export interface MinisignSignature {
  algorithm: "Ed" | "ED";
  keyIdBytes: Buffer;
  signature: Buffer;
  untrustedComment: string;
  trustedComment: string;
  globalSignature: Buffer;
}

/** Reads a minisign signature file (its text, or base64 of it as Tauri carries it). */
export function parseMinisignSignature(textOrBase64: string): MinisignSignature {
  let text = textOrBase64;
  if (!text.startsWith("untrusted comment:")) text = Buffer.from(textOrBase64.trim(), "base64").toString("utf8");
  const lines = text.split("\n").map((line) => line.replace(/\r$/, ""));
  const [untrusted, sigLine, trusted, globalLine] = lines;
  if (
    !untrusted?.startsWith("untrusted comment: ") ||
    !sigLine ||
    !trusted?.startsWith("trusted comment: ") ||
    !globalLine
  )
    throw new Error("minisign signature: four lines expected");
  const sig = Buffer.from(sigLine, "base64");
  const algorithm = sig.subarray(0, 2).toString("latin1");
  if (sig.length !== 74 || (algorithm !== "Ed" && algorithm !== "ED"))
    throw new Error("minisign signature: bad signature line");
  const globalSignature = Buffer.from(globalLine, "base64");
  if (globalSignature.length !== 64) throw new Error("minisign signature: bad global signature");
  return {
    algorithm,
    keyIdBytes: sig.subarray(2, 10),
    signature: sig.subarray(10),
    untrustedComment: untrusted.slice("untrusted comment: ".length),
    trustedComment: trusted.slice("trusted comment: ".length),
    globalSignature,
  };
}

const ed25519PublicKey = (raw: Buffer) =>
  createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });

/**
 * A minisign signature file for a file whose BLAKE2b-512 digest is `digest` ("ED", prehashed, as minisign ≥ 0.8
 * and Tauri's signer write), with minisign's trusted comment `timestamp:<s>\tfile:<name>`. Returns the text.
 */
export function minisignSign(
  key: ReleaseSigningKey,
  digest: Buffer,
  options: { filename: string; timestamp?: number; untrustedComment?: string },
): string {
  const signature = sign(null, digest, key.privateKey);
  const trustedComment = `timestamp:${options.timestamp ?? Math.floor(Date.now() / 1000)}\tfile:${options.filename}`;
  const globalSignature = sign(null, Buffer.concat([signature, Buffer.from(trustedComment, "utf8")]), key.privateKey);
  const sigLine = Buffer.concat([Buffer.from("ED", "latin1"), key.keyIdBytes, signature]).toString("base64");
  return [
    `untrusted comment: ${options.untrustedComment ?? "signature from minisign secret key"}`,
    sigLine,
    `trusted comment: ${trustedComment}`,
    globalSignature.toString("base64"),
    "",
  ].join("\n");
}

/**
 * Verifies a minisign signature the way minisign-verify (Tauri's updater) does: the key id must match, the
 * signature must verify over the file (its BLAKE2b-512 digest for "ED", the raw bytes for legacy "Ed"), and the
 * global signature over (signature ‖ trusted comment). Returns the key that verified, or null.
 */
export async function verifyMinisign(
  keys: ReleasePublicKey[],
  signatureText: string,
  open: () => ByteSource,
): Promise<ReleasePublicKey | null> {
  let parsed: MinisignSignature;
  try {
    parsed = parseMinisignSignature(signatureText);
  } catch {
    return null;
  }
  const key = keys.find((candidate) => candidate.keyIdBytes?.equals(parsed.keyIdBytes));
  if (!key) return null;
  const publicKey = ed25519PublicKey(key.raw);
  const global = Buffer.concat([parsed.signature, Buffer.from(parsed.trustedComment, "utf8")]);
  if (!verify(null, global, publicKey, parsed.globalSignature)) return null;
  if (parsed.algorithm === "ED") {
    const digest = await blake2b512(open());
    return verify(null, digest, publicKey, parsed.signature) ? key : null;
  }
  return (await verifyEd25519Stream(key.raw, parsed.signature, open())) ? key : null;
}

/** Both signatures of an artifact, from one pass for the digest and two for Ed25519. */
export async function signArtifact(
  key: ReleaseSigningKey,
  open: () => ByteSource,
  filename: string,
): Promise<{ signature: string; minisign_signature: string }> {
  const signature = await signSparkle(key, open);
  const digest = await blake2b512(open());
  const text = minisignSign(key, digest, { filename });
  return { signature, minisign_signature: Buffer.from(text, "utf8").toString("base64") };
}

export interface ArtifactExpectation {
  size: number;
  sha256: string;
  sha512: string;
  /** base64 Ed25519 over the file (Sparkle). */
  signature: string;
  /** base64 of the minisign signature file (Tauri). */
  minisign_signature: string;
}

export type ArtifactVerdict =
  | { ok: true; sparkleKey: ReleasePublicKey; minisignKey: ReleasePublicKey }
  | { ok: false; reason: "size" | "checksum" | "signature" | "minisign"; size: number };

/** Finishes Ed25519's check once k's hash (SHA-512 of R ‖ A ‖ M) is known. */
function ed25519Check(publicKey: Buffer, signature: Buffer, kHash: Buffer): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const S = littleEndian(signature.subarray(32));
  if (S >= L) return false;
  try {
    const A = Point.fromBytes(publicKey);
    const R = Point.fromBytes(signature.subarray(0, 32));
    const k = mod(littleEndian(kHash), L);
    const left = S === 0n ? Point.ZERO : Point.BASE.multiply(S);
    return left.equals(R.add(k === 0n ? Point.ZERO : A.multiply(k)));
  } catch {
    return false;
  }
}

/**
 * Everything the server checks when an upload completes and the SDK before it installs an update, in ONE pass over
 * the bytes: the size, SHA-256, SHA-512, the Sparkle signature and the minisign signature (with its trusted
 * comment), each against the trusted keys. A verdict names the first thing that failed.
 */
export async function verifyArtifact(
  keys: ReleasePublicKey[],
  expected: ArtifactExpectation,
  source: ByteSource,
): Promise<ArtifactVerdict> {
  const sparkle = Buffer.from(expected.signature, "base64");
  let minisign: MinisignSignature | null = null;
  try {
    minisign = parseMinisignSignature(expected.minisign_signature);
  } catch {
    minisign = null;
  }
  const minisignKey = minisign ? keys.find((key) => key.keyIdBytes?.equals(minisign.keyIdBytes)) : undefined;
  const sha256 = createHash("sha256");
  const sha512 = createHash("sha512");
  const blake = createHash("blake2b512");
  const sparkleHashes =
    sparkle.length === 64
      ? keys.map((key) => createHash("sha512").update(sparkle.subarray(0, 32)).update(key.raw))
      : [];
  const legacyMinisign =
    minisign?.algorithm === "Ed" && minisignKey
      ? createHash("sha512").update(minisign.signature.subarray(0, 32)).update(minisignKey.raw)
      : null;
  let size = 0;
  for await (const chunk of source) {
    size += chunk.length;
    if (size > expected.size) return { ok: false, reason: "size", size };
    sha256.update(chunk);
    sha512.update(chunk);
    blake.update(chunk);
    for (const hash of sparkleHashes) hash.update(chunk);
    legacyMinisign?.update(chunk);
  }
  if (size !== expected.size) return { ok: false, reason: "size", size };
  if (sha256.digest("hex") !== expected.sha256.toLowerCase() || sha512.digest("hex") !== expected.sha512.toLowerCase())
    return { ok: false, reason: "checksum", size };
  const sparkleIndex = sparkleHashes.findIndex((hash, i) =>
    ed25519Check((keys[i] as ReleasePublicKey).raw, sparkle, hash.digest()),
  );
  const sparkleKey = keys[sparkleIndex];
  if (sparkleIndex < 0 || !sparkleKey) return { ok: false, reason: "signature", size };
  if (!minisign || !minisignKey) return { ok: false, reason: "minisign", size };
  const publicKey = ed25519PublicKey(minisignKey.raw);
  const global = Buffer.concat([minisign.signature, Buffer.from(minisign.trustedComment, "utf8")]);
  if (!verify(null, global, publicKey, minisign.globalSignature)) return { ok: false, reason: "minisign", size };
  const fileOk = legacyMinisign
    ? ed25519Check(minisignKey.raw, minisign.signature, legacyMinisign.digest())
    : verify(null, blake.digest(), publicKey, minisign.signature);
  if (!fileOk) return { ok: false, reason: "minisign", size };
  return { ok: true, sparkleKey, minisignKey };
}
