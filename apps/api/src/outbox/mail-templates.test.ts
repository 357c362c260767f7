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

describe("the erasure notice (decision 0056)", () => {
  const erased = (after: Record<string, number>) =>
    renderMail(
      {
        template: "person.erased",
        to: "x@example.com",
        data: { target: { type: "erasure", id: "t" }, after },
      } as never,
      context,
      "ref-123",
    );

  it("says what went, from the counts, what stays, what signing in again does, and the reference", () => {
    const mail = erased({ signups: 1, customers: 1, licenses: 2, machines: 1, sessions_revoked: 1, messages: 0 });
    expect(mail.subject).toBe("Your Flotilla data has been erased");
    expect(mail.text).toContain(
      "We have erased what we held about this email address: your early-access answers, your account, your 2 licenses and the 1 device activated with them, their usage and validation counts and your sign-in sessions.",
    );
    expect(mail.text).toContain(
      "Your licenses stopped working on every device at once, and you were signed out everywhere.",
    );
    expect(mail.text).toContain("If you sign in to Flotilla again, we create a new, empty account");
    expect(mail.text).toContain("Reference: ref-123.");
    expect(mail.text).toContain("https://flotilla.example/privacy");
  });

  it("a person who never had an account is not told about signing in again", () => {
    const mail = erased({ signups: 1, newsletter_subscriptions: 1 });
    expect(mail.text).toContain(
      "We have erased what we held about this email address: your early-access answers and your newsletter subscription.",
    );
    expect(mail.text).not.toMatch(/sign in to Flotilla again|stopped working|signed out/);
    expect(mail.text).toContain("Nothing we erased comes back");
  });
});
