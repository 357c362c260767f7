import { describe, expect, it } from "vitest";
import { auditNetwork, auditText, containsEmail, REDACTED, withoutPersonalData } from "./pseudonymous";

describe("what the audit log keeps (decision 0053)", () => {
  it("finds an address anywhere the service would accept one, and nothing else", () => {
    for (const text of ["ann@ex.co", "Ann <ANN@EX.CO>", "mail from joann@ex.com, today", "x@y.z", "o'brien@ex.ie"]) {
      expect(containsEmail(text), text).toBe(true);
    }
    for (const text of ["admin-cli", "license-api", "FLOT-ABCDE", "meet @ 10.30", "@handle", "a@b", "2001:db8::1"]) {
      expect(containsEmail(text), text).toBe(false);
    }
  });

  it("a target id, actor id or reason never carries an address", () => {
    expect(auditText("6f1c0e5e-8c53-4bd8-9a0b-4f0a3a4c1d2e")).toBe("6f1c0e5e-8c53-4bd8-9a0b-4f0a3a4c1d2e");
    expect(auditText("ann@ex.co")).toBe(REDACTED);
    expect(auditText("Requested by ann@ex.co and Joann@Ex.com by mail")).toBe(
      `Requested by ${REDACTED} and ${REDACTED} by mail`,
    );
    expect(auditText(null)).toBeNull();
  });

  it("before/after lose the fields that name a person and any value holding an address, at any depth", () => {
    expect(
      withoutPersonalData({
        email: "ann@ex.co",
        name: "Ann",
        status: "active",
        granted_by: "boss@ex.co",
        nested: { company: "Ex", machine_name: "Ann's laptop", count: 2, contact: "ANN@EX.CO" },
        list: ["a", "ann@ex.co", { avatar_url: "https://x/y.png", ok: true }],
        flag: null,
      }),
    ).toEqual({ status: "active", nested: { count: 2 }, list: ["a", { ok: true }], flag: null });
    expect(withoutPersonalData("ann@ex.co")).toBeNull();
    expect(withoutPersonalData(["ann@ex.co"])).toEqual([]);
    expect(withoutPersonalData(7)).toBe(7);
    expect(withoutPersonalData(undefined)).toBeNull();
  });

  it("keeps a request's network, not its address: IPv4 /24, IPv6 /48", () => {
    expect(auditNetwork("203.0.113.9")).toBe("203.0.113.0/24");
    expect(auditNetwork("10.1.2.255")).toBe("10.1.2.0/24");
    expect(auditNetwork("::ffff:198.51.100.7")).toBe("198.51.100.0/24");
    expect(auditNetwork("2001:db8:abcd:12:1:2:3:4")).toBe("2001:db8:abcd::/48");
    expect(auditNetwork("2001:0DB8:0000:0012::1")).toBe("2001:db8::/48");
    expect(auditNetwork("fe80::1%eth0")).toBe("fe80::/48");
    expect(auditNetwork("64:ff9b:1::192.0.2.1")).toBe("64:ff9b:1::/48");
    expect(auditNetwork("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1::/48");
    expect(auditNetwork("2001:0:0:1::")).toBe("2001::/48");
    expect(auditNetwork("::1")).toBe("::/48");
    expect(auditNetwork("127.0.0.1")).toBe("127.0.0.0/24");
    // Already a network: the same network again (a migrated row read back, a caller that truncated).
    expect(auditNetwork("203.0.113.0/24")).toBe("203.0.113.0/24");
    for (const junk of ["", "unknown", "999.1.1.1", "1.2.3", "::g", "203.0.113.9/8", "ann@ex.co"]) {
      expect(auditNetwork(junk), junk).toBeNull();
    }
    expect(auditNetwork(null)).toBeNull();
    expect(auditNetwork(undefined)).toBeNull();
  });
});
