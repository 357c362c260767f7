import { describe, expect, it } from "vitest";
import {
  ACTIVITY_CHIP_CLASSES,
  activityChipClass,
  activityLevel,
  guessDeviceKind,
  pluralize,
  remainingDevicesHint,
  removeDeviceTitle,
} from "./device-helpers";

describe("guessDeviceKind", () => {
  it.each([
    ["my-mobile-phone", "mobile"],
    ["ANDROID-7F3A", "mobile"],
    ["ada-iOS-ipad", "mobile"],
    ["build-server-01", "server"],
    ["PROD-eu-west", "server"],
    ["deploy-runner", "server"],
    ["ada-macbook-pro", "desktop"],
    ["9f86d081884c7d65", "desktop"],
    ["", "desktop"],
  ])("%s → %s", (machineId, kind) => {
    expect(guessDeviceKind(machineId)).toBe(kind);
  });

  it("prefers mobile when both kinds of words appear", () => {
    expect(guessDeviceKind("android-prod-test")).toBe("mobile");
  });
});

describe("activityLevel", () => {
  it("compares a device with the busiest one: above 0.7 high, above 0.3 medium, else low", () => {
    expect(activityLevel(100, 100)).toBe("high");
    expect(activityLevel(71, 100)).toBe("high");
    expect(activityLevel(70, 100)).toBe("medium");
    expect(activityLevel(31, 100)).toBe("medium");
    expect(activityLevel(30, 100)).toBe("low");
    expect(activityLevel(1, 100)).toBe("low");
  });

  it("is low when nothing happened", () => {
    expect(activityLevel(0, 0)).toBe("low");
    expect(activityLevel(0, 10)).toBe("low");
  });

  it("maps levels to green, yellow and grey chips", () => {
    expect(activityChipClass(9, 10)).toBe(ACTIVITY_CHIP_CLASSES.high);
    expect(ACTIVITY_CHIP_CLASSES.high).toContain("emerald");
    expect(activityChipClass(5, 10)).toBe(ACTIVITY_CHIP_CLASSES.medium);
    expect(ACTIVITY_CHIP_CLASSES.medium).toContain("amber");
    expect(activityChipClass(1, 10)).toBe(ACTIVITY_CHIP_CLASSES.low);
    expect(ACTIVITY_CHIP_CLASSES.low).toContain("slate");
  });
});

describe("remainingDevicesHint", () => {
  it("pluralises the number of devices that can still be added", () => {
    expect(remainingDevicesHint(2, 3)).toBe("You can add 1 more device");
    expect(remainingDevicesHint(1, 3)).toBe("You can add 2 more devices");
    expect(remainingDevicesHint(0, 5)).toBe("You can add 5 more devices");
  });

  it("says nothing when the license is full (or over)", () => {
    expect(remainingDevicesHint(3, 3)).toBeNull();
    expect(remainingDevicesHint(4, 3)).toBeNull();
  });

  it("pluralize counts any noun", () => {
    expect(pluralize(1, "use")).toBe("1 use");
    expect(pluralize(0, "use")).toBe("0 uses");
    expect(pluralize(2, "device")).toBe("2 devices");
  });
});

describe("removeDeviceTitle", () => {
  it("explains why the last device cannot be removed", () => {
    expect(removeDeviceTitle(1)).toBe("Cannot remove the last device");
    expect(removeDeviceTitle(0)).toBe("Cannot remove the last device");
    expect(removeDeviceTitle(2)).toBe("Remove this device");
  });
});
