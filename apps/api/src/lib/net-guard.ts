/**
 * Where the service may send requests that an admin chose the address of (webhooks): never to this machine, the
 * private network or cloud metadata on any server others can reach, production or not (SSRF; exposure.ts).
 *
 * - At registration: the URL (https, no credentials, no local names, no non-public address literal, in any spelling
 *   WHATWG URL parsing accepts — `0x7f.1`, `[::ffff:127.0.0.1]`), and the addresses its name resolves to then.
 * - On every connection: the address is checked inside the socket's own DNS lookup (`guardedLookup`), so the address
 *   checked is the address connected to — a name that resolved to a public address at registration and to 10.0.0.1
 *   now is refused now (DNS rebinding), and one answer that mixes a public address with a private one is refused
 *   whole. Redirects are never followed (outbox/webhooks.ts).
 *
 * The resolver is a parameter so that tests answer for DNS; the service uses the system's (`dns.lookup`).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/** Every address a name resolves to. */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

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
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  // IPv4-compatible (deprecated; `::127.0.0.1`), the unspecified address and loopback (::1) with it.
  ["::", 96],
  // IPv4-translated (SIIT, `::ffff:0:a.b.c.d`); IPv4-mapped addresses (`::ffff:a.b.c.d`) are checked as IPv4 below.
  ["::ffff:0:0:0", 96],
  // Discard-only, Teredo and 6to4: tunnels that carry an IPv4 address of anyone's choosing inside.
  ["100::", 64],
  ["2001::", 32],
  ["2002::", 16],
  ["64:ff9b:1::", 48],
  ["fc00::", 7],
  ["fe80::", 10],
  // Site-local (deprecated, RFC 3879), still routed locally by some networks.
  ["fec0::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
  ["2001:db8::", 32],
] as const)
  blocked.addSubnet(network, prefix, "ipv6");

/** True for addresses anyone on the internet could also reach (not loopback, private, link-local, reserved). */
export function isPublicAddress(address: string): boolean {
  // A scoped IPv6 address (fe80::1%eth0) is judged by its address.
  const bare = address.replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return isPublicAddress(mapped[1]!);
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
    if (hex) {
      const high = Number.parseInt(hex[1]!, 16);
      const low = Number.parseInt(hex[2]!, 16);
      return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
    }
    return !blocked.check(bare, "ipv6");
  }
  return !blocked.check(bare, "ipv4");
}

/** A host name without brackets or the trailing dot of a fully qualified name (`localhost.` is localhost). */
function bareHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "");
}

export function isLoopbackName(host: string): boolean {
  const name = bareHost(host);
  return name === "localhost" || name.endsWith(".localhost") || name === "::1" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** Names that only mean something on a local network. */
const LOCAL_NAME = /(^|\.)(local|internal|localhost|localdomain|home\.arpa|lan|intranet|corp)$/;

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
  const host = bareHost(url.hostname);
  if (policy === "production") {
    if (url.protocol !== "https:") return "The URL must start with https://";
    const literal = isIP(host) !== 0;
    if (
      isLoopbackName(host) ||
      (literal && !isPublicAddress(host)) ||
      (!literal && (!host.includes(".") || LOCAL_NAME.test(host)))
    ) {
      return "The URL must point to a public internet address";
    }
    return null;
  }
  if (url.protocol === "http:" && !isLoopbackName(host)) return "http:// is allowed only for localhost; use https://";
  return null;
}

/**
 * The registration's DNS check (production policy): a name whose addresses include a non-public one is refused. A name
 * that does not resolve (yet), or not within `timeoutMs`, passes: every connection is checked again anyway.
 */
export async function resolvedUrlProblem(
  raw: string,
  policy: UrlPolicy,
  resolve: Resolve = systemResolve,
  timeoutMs = 2_000,
): Promise<string | null> {
  if (policy !== "production") return null;
  const host = bareHost(new URL(raw).hostname);
  if (isIP(host) !== 0) return null;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    resolve(host).catch(() => null),
    new Promise<null>((settle) => {
      timer = setTimeout(() => settle(null), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  if (addresses?.some((entry) => !isPublicAddress(entry.address))) {
    return "The URL's host name resolves to an address that is not public";
  }
  return null;
}

/**
 * The `lookup` of a webhook's socket: resolves once, refuses (production) when any address in the answer is not
 * public, and hands the socket exactly the addresses it checked. Node calls it for host names only; an address
 * literal is checked by `webhookUrlProblem` before the request is made.
 */
export function guardedLookup(policy: UrlPolicy, resolve: Resolve = systemResolve) {
  return (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname).then(
      (answer) => {
        if (policy === "production" && answer.some((entry) => !isPublicAddress(entry.address))) {
          const refused: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to a non-public address`);
          refused.code = "EADDRNOTPUBLIC";
          return callback(refused, "", 0);
        }
        const family =
          options.family === 6 || options.family === "IPv6"
            ? 6
            : options.family === 4 || options.family === "IPv4"
              ? 4
              : 0;
        const list = family === 0 ? answer : answer.filter((entry) => entry.family === family);
        if (list.length === 0) {
          const missing: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          missing.code = "ENOTFOUND";
          return callback(missing, "", 0);
        }
        if (options.all) return callback(null, list);
        callback(null, list[0]!.address, list[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}
