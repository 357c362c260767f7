import { describe, expect, it } from "vitest";
import { isSearchShortcut, shortcutHint } from "./shortcut-hint";

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

describe("isSearchShortcut", () => {
  const press = (init: KeyboardEventInit, target: HTMLElement = document.body) => {
    const event = new KeyboardEvent("keydown", init);
    Object.defineProperty(event, "target", { value: target });
    return isSearchShortcut(event);
  };

  it("opens on Ctrl K and ⌘K", () => {
    expect(press({ key: "k", code: "KeyK", ctrlKey: true })).toBe(true);
    expect(press({ key: "k", code: "KeyK", metaKey: true })).toBe(true);
  });

  it("opens with Caps Lock on (the key arrives upper-case) and with Shift held", () => {
    expect(press({ key: "K", code: "KeyK", ctrlKey: true })).toBe(true);
    expect(press({ key: "K", code: "KeyK", metaKey: true, shiftKey: true })).toBe(true);
  });

  it("opens on a keyboard whose K key types another alphabet", () => {
    expect(press({ key: "л", code: "KeyK", ctrlKey: true })).toBe(true);
  });

  it("follows the letter, not the key's place, on a Latin layout that moves K (Dvorak's K is where QWERTY has V)", () => {
    expect(press({ key: "t", code: "KeyK", ctrlKey: true })).toBe(false);
    expect(press({ key: "k", code: "KeyV", ctrlKey: true })).toBe(true);
  });

  it("does not open on K alone, and '/' only outside a text field", () => {
    expect(press({ key: "k", code: "KeyK" })).toBe(false);
    expect(press({ key: "/" })).toBe(true);
    expect(press({ key: "/" }, document.createElement("input"))).toBe(false);
  });
});
