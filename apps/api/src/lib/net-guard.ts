/**
 * Where the service may send requests that an admin chose the address of (webhooks): never to this machine, the
 * private network or cloud metadata on any server others can reach, production or not (SSRF; exposure.ts). The rule is checked on the URL when it is registered and
 * again on every connection, on the address DNS actually returned (a name that resolves to 10.0.0.1 tomorrow is
 * refused then: no DNS rebinding).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
  ["2001:db8::", 32],
] as const)
  blocked.addSubnet(network, prefix, "ipv6");

/** True for addresses anyone on the internet could also reach (not loopback, private, link-local, reserved). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return isPublicAddress(mapped[1]!);
    return !blocked.check(address, "ipv6");
  }
  return !blocked.check(address, "ipv4");
}

export function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "");
  return name === "localhost" || name.endsWith(".localhost") || name === "::1" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** "production": public https addresses only (production, or any exposed server); "development": loopback only. */
export type UrlPolicy = "production" | "development";

/**
 * Checks a webhook URL: with the "production" policy https only, to a name or a public address; with the
 * "development" policy (a loopback development server) https anywhere, or http to this machine (a receiver under
 * test). Returns the problem, or null.
 */
export function webhookUrlProblem(raw: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Enter a full URL, e.g. https://example.com/webhooks";
  }
  if (url.username || url.password) return "The URL must not contain a user name or password";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "The URL must start with https://";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (policy === "production") {
    if (url.protocol !== "https:") return "The URL must start with https://";
    if (
      isLoopbackName(host) ||
      (isIP(host) !== 0 && !isPublicAddress(host)) ||
      !host.includes(".") ||
      /\.(local|internal|localhost)$/i.test(host)
    ) {
      return "The URL must point to a public internet address";
    }
    return null;
  }
  if (url.protocol === "http:" && !isLoopbackName(host)) return "http:// is allowed only for localhost; use https://";
  return null;
}

/** A dns.lookup for http.request that refuses non-public addresses (production) after resolving. */
export function guardedLookup(policy: UrlPolicy) {
  return (
    hostname: string,
    options: object,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as LookupAddress[];
      if (policy === "production" && list.some((entry) => !isPublicAddress(entry.address))) {
        const refused: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to a non-public address`);
        refused.code = "EADDRNOTPUBLIC";
        return callback(refused, "", 0);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}
