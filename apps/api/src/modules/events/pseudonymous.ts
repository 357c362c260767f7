/**
 * What the audit log may keep (decision 0053). The log is append-only (migration 0009): nothing in it can be erased,
 * so it never holds what names a person — no email address anywhere, no name — and of a request's network address
 * only its network. recordEvent applies these to every row, so no caller can get it wrong; migration 0012 applied
 * the same rules, in SQL, to the rows written before.
 */
import { isIPv4, isIPv6 } from "node:net";
import { EMAIL_WITHIN } from "@flotilla/contracts/email";
import { AUDIT_ADDRESS_PREFIX } from "@flotilla/contracts/retention";

/**
 * Fields that name a person, dropped at any depth. The log names people by id (customer, signup, subscriber,
 * license, machine, admin grant); the webhook and mail that report the event, which can be erased, carry the values.
 */
export const PERSONAL_FIELDS: readonly string[] = ["email", "name", "company", "machine_name", "avatar_url"];

/** What stands in a target id, actor id or reason where an address was (migration 0012 writes the same). */
export const REDACTED = "[email removed]";

const EMAILS = new RegExp(EMAIL_WITHIN.source, "g");

export function containsEmail(text: string): boolean {
  return EMAIL_WITHIN.test(text);
}

/** A target id, actor id or reason as the log keeps it: every address in it replaced by REDACTED. */
export function auditText<T extends string | null | undefined>(text: T): T {
  return (typeof text === "string" ? text.replace(EMAILS, REDACTED) : text) as T;
}

/** A before/after value as the log keeps it: without personal fields, and without any string holding an address. */
export function withoutPersonalData(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return containsEmail(value) ? null : value;
  if (typeof value !== "object") return value;
  const keep = (field: unknown) => !(typeof field === "string" && containsEmail(field));
  if (Array.isArray(value)) return value.filter(keep).map(withoutPersonalData);
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (!PERSONAL_FIELDS.includes(key) && keep(field)) kept[key] = withoutPersonalData(field);
  }
  return kept;
}

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

function ipv4Network(address: string, prefix: number): string {
  const value = address.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const network = (value & mask) >>> 0;
  return `${[24, 16, 8, 0].map((shift) => (network >>> shift) & 255).join(".")}/${prefix}`;
}

function ipv6Words(address: string): number[] {
  // An embedded IPv4 tail (64:ff9b::192.0.2.1) is the last two words.
  const text = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    [Number(a) * 256 + Number(b), Number(c) * 256 + Number(d)].map((word) => word.toString(16)).join(":"),
  );
  const words = (part: string) => (part === "" ? [] : part.split(":").map((word) => Number.parseInt(word, 16)));
  const [head = "", tail] = text.split("::");
  if (tail === undefined) return words(head);
  const first = words(head);
  const last = words(tail);
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/** RFC 5952 text: lower case, no leading zeros, the longest run of two or more zero words as "::". */
function ipv6Text(words: number[]): string {
  let start = -1;
  let length = 0;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > length && j - i >= 2) [start, length] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((word) => word.toString(16));
  if (start < 0) return hex.join(":");
  return `${hex.slice(0, start).join(":")}::${hex.slice(start + length).join(":")}`;
}

function ipv6Network(address: string, prefix: number): string {
  const words = ipv6Words(address).map((word, index) => {
    const bits = Math.min(16, Math.max(0, prefix - index * 16));
    return bits === 0 ? 0 : word & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${ipv6Text(words)}/${prefix}`;
}

/**
 * The network the log keeps of a request's address (AUDIT_ADDRESS_PREFIX: IPv4 /24, IPv6 /48), as PostgreSQL writes
 * a cidr ("203.0.113.0/24", "2001:db8:abcd::/48"); an IPv4-mapped IPv6 address counts as IPv4. An address already
 * cut to that network gives itself; anything else that is not an IP address gives null.
 */
export function auditNetwork(address: string | null | undefined): string | null {
  if (!address) return null;
  let value = address.trim();
  let given: number | null = null;
  const slash = value.indexOf("/");
  if (slash >= 0) {
    given = Number(value.slice(slash + 1));
    value = value.slice(0, slash);
  }
  value = value.replace(/%.*$/, "");
  const mapped = IPV4_MAPPED.exec(value);
  if (mapped) value = mapped[1]!;
  if (isIPv4(value)) {
    if (given !== null && given !== AUDIT_ADDRESS_PREFIX.ipv4) return null;
    return ipv4Network(value, AUDIT_ADDRESS_PREFIX.ipv4);
  }
  if (isIPv6(value)) {
    if (given !== null && given !== AUDIT_ADDRESS_PREFIX.ipv6) return null;
    return ipv6Network(value, AUDIT_ADDRESS_PREFIX.ipv6);
  }
  return null;
}
