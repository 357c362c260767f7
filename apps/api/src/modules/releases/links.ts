/**
 * Download links (decision 0061): `/api/downloads/<token>`, where the token names an artifact, who it was issued
 * to, and when it expires, with an HMAC under a key derived from APP_SECRET. Stateless, so any instance redeems
 * it; short-lived (DOWNLOAD_LINK_TTL_SECONDS), so a copied link is worth little.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

export interface LinkClaims {
  /** The artifact. */
  a: string;
  /** The license it was issued to, or "op" for an operator. */
  l: string;
  /** Expiry, unix seconds. */
  e: number;
}

export class DownloadLinks {
  private readonly key: Buffer;

  constructor(appSecret: string) {
    this.key = Buffer.from(hkdfSync("sha256", appSecret, "flotilla", "download-links", 32));
  }

  private mac(payload: string) {
    return createHmac("sha256", this.key).update(payload).digest();
  }

  issue(claims: LinkClaims): string {
    const payload = Buffer.from(JSON.stringify(claims), "utf8").toString("base64url");
    return `${payload}.${this.mac(payload).toString("base64url")}`;
  }

  /** The claims of a genuine, unexpired token; null otherwise. */
  read(token: string, now = Date.now()): LinkClaims | null {
    const [payload, mac, extra] = token.split(".");
    if (!payload || !mac || extra !== undefined || token.length > 512) return null;
    const given = Buffer.from(mac, "base64url");
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as LinkClaims;
      if (typeof claims.a !== "string" || typeof claims.l !== "string" || typeof claims.e !== "number") return null;
      return claims.e * 1000 > now ? claims : null;
    } catch {
      return null;
    }
  }
}
