import { describe, expect, it } from "vitest";
import { shortcutHint } from "./shortcut-hint";

describe("shortcutHint", () => {
  it("shows ⌘K on Apple platforms", () => {
    expect(shortcutHint({ platform: "MacIntel", hasFinePointer: true })).toBe("⌘K");
    expect(shortcutHint({ platform: "macOS", hasFinePointer: true })).toBe("⌘K");
    expect(shortcutHint({ platform: "iPad", hasFinePointer: true })).toBe("⌘K");
  });

  it("shows Ctrl K on Windows and Linux", () => {
    expect(shortcutHint({ platform: "Win32", hasFinePointer: true })).toBe("Ctrl K");
    expect(shortcutHint({ platform: "Linux x86_64", hasFinePointer: true })).toBe("Ctrl K");
  });

  it("shows nothing on a touch screen without a mouse or trackpad", () => {
    expect(shortcutHint({ platform: "iPhone", hasFinePointer: false })).toBeNull();
    expect(shortcutHint({ platform: "Linux armv8l", hasFinePointer: false })).toBeNull();
  });
});
