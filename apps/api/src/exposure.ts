/**
 * One notion of exposure (decision 0038): a server is reachable from this machine only ("loopback": HOST and
 * PUBLIC_ORIGIN both loopback) or from others too ("exposed"). Every development convenience is named here, and
 * whether a server may offer it is decided here alone, from exposure, NODE_ENV and DEV_SIGN_IN — never from
 * NODE_ENV by itself: a staging box that forgot NODE_ENV=production is exposed all the same.
 */
import type { Config } from "./config";

export type Exposure = "loopback" | "exposed";

const LOOPBACK_HOSTS = new Set(["localhost", "::1", "[::1]"]);
/** True for names and addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  return LOOPBACK_HOSTS.has(name) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** Loopback only when the socket and the public origin both are: a proxy in front of a loopback socket exposes it. */
export function exposureOf(host: string, publicOrigin: string): Exposure {
  return isLoopbackHost(host) && isLoopbackHost(new URL(publicOrigin).hostname) ? "loopback" : "exposed";
}

/**
 * Every development convenience: what it gives, and what an exposed (non-production) server does instead.
 * Production offers none; a loopback server outside production offers all (DEV_SIGN_IN=false turns the
 * development sign-in off there too). An exposed server offers none, except the development sign-in when
 * DEV_SIGN_IN=true asks for it — that opt-in opens nothing else.
 */
export const DEVELOPMENT_CONVENIENCES = {
  developmentSignIn: {
    gives: "the password-less development issuer at /oidc (anyone signs in as anyone)",
    whenExposed: "only with DEV_SIGN_IN=true; otherwise the Google settings are required to start",
  },
  devMailPage: {
    gives: "/dev/mail: every mail kept without SMTP_URL, addresses, confirmation and unsubscribe links included",
    whenExposed:
      "the route does not exist; without SMTP_URL mail stays in the database (dev_mail) and a warning says so",
  },
  webhooksToThisNetwork: {
    gives: "webhook endpoints on http://localhost, private ranges and link-local addresses (169.254.169.254)",
    whenExposed: "https to public addresses only, checked at registration and on every connection",
  },
  generatedSecrets: {
    gives:
      "APP_SECRET and LICENSE_SIGNING_KEY generated into DATA_DIR when unset, and a development release key pair when RELEASE_PUBLIC_KEYS is",
    whenExposed: "both are required to start",
  },
  plainHttpPages: {
    gives: "pages without HSTS and upgrade-insecure-requests (http://localhost must not be pinned to https)",
    whenExposed: "both are sent whenever PUBLIC_ORIGIN is https",
  },
} as const satisfies Record<string, { gives: string; whenExposed: string }>;

export type Convenience = keyof typeof DEVELOPMENT_CONVENIENCES;
export const CONVENIENCE_NAMES = Object.keys(DEVELOPMENT_CONVENIENCES) as Convenience[];

export type ExposureInputs = Pick<Config, "env" | "exposure" | "devSignIn">;

/** Whether this server may offer a development convenience: the only place that decides it. */
export function allows(config: ExposureInputs, convenience: Convenience): boolean {
  if (config.env === "production") return false;
  if (convenience === "developmentSignIn") {
    return config.exposure === "loopback" ? config.devSignIn !== false : config.devSignIn === true;
  }
  return config.exposure === "loopback";
}

/** Every convenience and whether this server offers it (logs, tests). */
export function conveniences(config: ExposureInputs): Record<Convenience, boolean> {
  return Object.fromEntries(CONVENIENCE_NAMES.map((name) => [name, allows(config, name)])) as Record<
    Convenience,
    boolean
  >;
}
