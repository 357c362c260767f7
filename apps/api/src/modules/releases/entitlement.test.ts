/** Who may download what (decision 0059), as pure rules. */
import { describe, expect, it } from "vitest";
import { customerChannels, licenseRefusal, mayHave } from "./entitlement";

const features = { maxConcurrentExecutions: 1, sharedMemory: false, backups: false, embeddingModels: false };
const now = new Date("2026-11-28T12:00:00Z");
const end = new Date("2026-11-01T00:00:00Z");

describe("entitlement", () => {
  it("suspended never; expired only with maintain, and only by date", () => {
    expect(licenseRefusal({ status: "active", expiresAt: null, features }, now, "refuse")).toBeNull();
    expect(licenseRefusal({ status: "suspended", expiresAt: null, features }, now, "maintain")).toBe("SUSPENDED");
    expect(licenseRefusal({ status: "active", expiresAt: end, features }, now, "refuse")).toBe("EXPIRED");
    expect(licenseRefusal({ status: "active", expiresAt: end, features }, now, "maintain")).toBeNull();
    expect(licenseRefusal({ status: "expired", expiresAt: end, features }, now, "maintain")).toBeNull();
    // An admin's "expired" with no end date has no "before" to keep.
    expect(licenseRefusal({ status: "expired", expiresAt: null, features }, now, "maintain")).toBe("EXPIRED");
  });

  it("stable for all; beta for testers who ask; rc, alpha and dev for no customer", () => {
    expect(customerChannels("stable", true)).toEqual(["stable"]);
    expect(customerChannels("beta", false)).toEqual(["stable"]);
    expect(customerChannels("beta", true)).toEqual(["stable", "beta"]);
    for (const channel of ["rc", "alpha", "dev"] as const)
      expect(customerChannels(channel, true)).not.toContain(channel);
  });

  it("a required feature, and nothing published after the license's end", () => {
    const license = { status: "active", expiresAt: end, features };
    const before = { channel: "stable", requiresFeature: null, publishedAt: new Date("2026-10-01T00:00:00Z") };
    expect(mayHave(before, license, ["stable"])).toBe(true);
    expect(mayHave({ ...before, publishedAt: new Date("2026-11-02T00:00:00Z") }, license, ["stable"])).toBe(false);
    expect(mayHave({ ...before, requiresFeature: "backups" }, license, ["stable"])).toBe(false);
    expect(
      mayHave({ ...before, requiresFeature: "backups" }, { ...license, features: { ...features, backups: true } }, [
        "stable",
      ]),
    ).toBe(true);
    expect(mayHave({ ...before, channel: "beta" }, license, ["stable"])).toBe(false);
  });
});
