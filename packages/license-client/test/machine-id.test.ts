import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LicenseInputError } from "../src/errors";
import { firstMacAddress, getMachineId, machineKind, type SystemFacts } from "../src/machine-id";

const system: SystemFacts = {
  hostname: "dev-box",
  platform: "linux",
  arch: "x64",
  networkInterfaces: {
    wlan0: [
      {
        address: "10.0.0.5",
        netmask: "255.0.0.0",
        family: "IPv4",
        mac: "AA:BB:CC:00:00:02",
        internal: false,
        cidr: null,
      },
    ],
    lo: [
      {
        address: "127.0.0.1",
        netmask: "255.0.0.0",
        family: "IPv4",
        mac: "00:00:00:00:00:00",
        internal: true,
        cidr: null,
      },
    ],
    eth0: [
      {
        address: "10.0.0.4",
        netmask: "255.0.0.0",
        family: "IPv4",
        mac: "aa:bb:cc:00:00:01",
        internal: false,
        cidr: null,
      },
    ],
  },
};

describe("getMachineId", () => {
  it("hashes hostname, platform, arch and the first non-internal MAC, prefixed by the kind", () => {
    const expected = createHash("sha256").update("dev-box\nlinux\nx64\naa:bb:cc:00:00:01").digest("hex");
    expect(getMachineId({ system, env: {} })).toBe(`desktop-${expected}`);
  });

  it("is stable across calls and interface order, and changes with the machine", () => {
    const reordered: SystemFacts = {
      ...system,
      networkInterfaces: { eth0: system.networkInterfaces.eth0, wlan0: system.networkInterfaces.wlan0 },
    };
    const id = getMachineId({ system, env: {} });
    expect(getMachineId({ system: reordered, env: {} })).toBe(id);
    expect(getMachineId({ system: { ...system, hostname: "other-box" }, env: {} })).not.toBe(id);
    expect(id).toMatch(/^desktop-[0-9a-f]{64}$/);
  });

  it("takes the kind from FLOTILLA_MACHINE_KIND or the option", () => {
    expect(getMachineId({ system, env: { FLOTILLA_MACHINE_KIND: "server" } })).toMatch(/^server-[0-9a-f]{64}$/);
    expect(getMachineId({ system, env: { FLOTILLA_MACHINE_KIND: "server" }, kind: "ci" })).toMatch(/^ci-/);
  });

  it("can be overridden by the caller only (never by the environment), and validates the override", () => {
    expect(getMachineId({ system, override: "option" })).toBe("option");
    expect(getMachineId({ system, env: { FLOTILLA_MACHINE_ID: "my-laptop" } })).toBe(getMachineId({ system, env: {} }));
    expect(() => getMachineId({ override: "has spaces" })).toThrow(LicenseInputError);
  });

  it("works on this machine", () => {
    const id = getMachineId({ env: {} });
    expect(id).toBe(getMachineId({ env: {} }));
    expect(id.length).toBeLessThanOrEqual(128);
  });
});

describe("helpers", () => {
  it("skips internal and all-zero MACs", () => {
    expect(firstMacAddress({ lo: system.networkInterfaces.lo })).toBeUndefined();
    expect(firstMacAddress(system.networkInterfaces)).toBe("aa:bb:cc:00:00:01");
  });

  it("normalises the kind", () => {
    expect(machineKind(" Build Server ")).toBe("build-server");
    expect(machineKind("")).toBe("desktop");
    expect(machineKind("***")).toBe("desktop");
    expect(machineKind("x".repeat(40))).toHaveLength(32);
  });
});
