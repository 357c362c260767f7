/**
 * A stable id for this machine: "<kind>-" + SHA-256(hostname, platform, arch, first non-internal MAC) in hex.
 * The kind prefix ("desktop" unless FLOTILLA_MACHINE_KIND says otherwise) is what the dashboard reads to pick
 * a device icon (server/prod/deploy → server, mobile/android/ios → mobile, else desktop).
 * The `override` option replaces the computed id altogether: for tests and development builds only — an app
 * that lets its user choose the id lets a copied activation run anywhere.
 */
import { createHash } from "node:crypto";
import os from "node:os";
import { MachineIdSchema } from "@flotilla/contracts/licensing";
import { LicenseInputError } from "./errors";

export const DEFAULT_MACHINE_KIND = "desktop";

export interface SystemFacts {
  hostname: string;
  platform: string;
  arch: string;
  networkInterfaces: Record<string, os.NetworkInterfaceInfo[] | undefined>;
}

export interface MachineIdOptions {
  /** Use this id as is (validated). */
  override?: string;
  /** Kind hint for the prefix. Takes precedence over env FLOTILLA_MACHINE_KIND. */
  kind?: string;
  env?: Record<string, string | undefined>;
  /** The facts to hash (default: this machine's, from node:os). */
  system?: SystemFacts;
}

export function currentSystem(): SystemFacts {
  return {
    hostname: os.hostname(),
    platform: os.platform(),
    arch: os.arch(),
    networkInterfaces: os.networkInterfaces(),
  };
}

/** The first non-internal, non-zero MAC address, scanning interfaces in name order so the choice is stable. */
export function firstMacAddress(interfaces: SystemFacts["networkInterfaces"]): string | undefined {
  for (const name of Object.keys(interfaces).sort()) {
    for (const info of interfaces[name] ?? []) {
      if (!info.internal && info.mac && info.mac !== "00:00:00:00:00:00") return info.mac.toLowerCase();
    }
  }
  return undefined;
}

export function getMachineId(options: MachineIdOptions = {}): string {
  const env = options.env ?? process.env;
  const override = options.override;
  if (override !== undefined && override.trim() !== "") {
    const parsed = MachineIdSchema.safeParse(override);
    if (!parsed.success) {
      throw new LicenseInputError(parsed.error.issues[0]?.message ?? "Invalid machine id", "machine_id");
    }
    return parsed.data;
  }
  const system = options.system ?? currentSystem();
  const fingerprint = [system.hostname, system.platform, system.arch, firstMacAddress(system.networkInterfaces) ?? ""];
  const hash = createHash("sha256").update(fingerprint.join("\n")).digest("hex");
  return `${machineKind(options.kind ?? env.FLOTILLA_MACHINE_KIND)}-${hash}`;
}

/** Lower-case letters, digits and hyphens, at most 32 characters; "desktop" when empty. */
export function machineKind(value: string | undefined): string {
  const kind = (value ?? "")
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 32)
    .replace(/-+$/, "");
  return kind || DEFAULT_MACHINE_KIND;
}
