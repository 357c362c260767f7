import { LEGAL_ENTITY } from "@flotilla/contracts/brand";
import { describe, expect, it } from "vitest";
import { renderMail } from "./mail-templates";

const context = { publicOrigin: "https://flotilla.example", secret: "s".repeat(32) } as unknown as Parameters<
  typeof renderMail
>[1];

describe("mail says what is true", () => {
  const refused = renderMail(
    { template: "license.machine_limit_reached", data: { after: { max_machines: 3, platform: "darwin" } } } as never,
    context,
  );

  it("names the operator in every footer (Terms and Privacy name the same entity)", () => {
    for (const part of [refused.text, refused.html]) {
      expect(part).toContain(LEGAL_ENTITY.name);
      expect(part).toContain(LEGAL_ENTITY.postalAddress);
    }
  });

  it("offers what exists when a device is refused: no plan can be bought, so no 'upgrade'", () => {
    expect(refused.text).not.toMatch(/upgrade/i);
    expect(refused.text).toMatch(/Remove a device you no longer use/);
  });
});
