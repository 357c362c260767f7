import { describe, expect, it } from "vitest";
import { isSafeDisplayText, stripUnsafeText } from "./text";

describe("isSafeDisplayText", () => {
  it("accepts names in any script, accents, emoji with joiners, skin tones and flags", () => {
    for (const name of [
      "Ada’s MacBook Pro",
      "مرحبا-laptop",
      "東京 dev",
      "é (e + U+0301)",
      "🧑‍💻 dev box",
      "👍🏽",
      "🇩🇪 build",
    ]) {
      expect(isSafeDisplayText(name), name).toBe(true);
    }
  });

  it("refuses what disguises text: controls, bidi overrides and isolates, invisible and blank characters", () => {
    for (const name of [
      "Ada\u0007",
      "Ada\u202eexe.gpj",
      "Ada\u2066Laptop\u2069",
      "Ada\u200bLaptop",
      "Office\u2063PC",
      "soft\u00adhyphen",
      "line\u2028break",
      "tag\u{E0049}",
      "filler\u3164",
      "private\ue000",
      "lone\ud800",
      "lone\udc00",
    ]) {
      expect(isSafeDisplayText(name), JSON.stringify(name)).toBe(false);
    }
  });

  it("stripUnsafeText removes exactly those characters", () => {
    expect(stripUnsafeText("A\u202eda\u200b \u{1F9D1}\u200d\u{1F4BB}\ud800")).toBe("Ada \u{1F9D1}\u200d\u{1F4BB}");
  });
});
