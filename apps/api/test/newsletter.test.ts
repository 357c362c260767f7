import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newsletterSubscribers } from "../src/db/schema";
import { unsubscribeToken } from "../src/modules/newsletter/service";
import { validSignup } from "./fixtures";
import { createTestApp, testConfig } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
const secret = testConfig().appSecret!;

beforeAll(async () => {
  ({ app, close } = await createTestApp());
});
afterAll(() => close());

const subscribe = (email: unknown, source?: string) =>
  app.inject({ method: "POST", url: "/api/newsletter", payload: { email, ...(source ? { source } : {}) } });
const subscribers = () => app.database.db.select().from(newsletterSubscribers);

describe("newsletter", () => {
  it("subscribes an email once, whatever its case", async () => {
    expect((await subscribe("reader@example.com")).json()).toMatchObject({ success: true });
    expect((await subscribe("READER@example.com")).statusCode).toBe(200);
    const rows = await subscribers();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ emailNormalized: "reader@example.com", source: "blog", unsubscribedAt: null });
  });

  it("validates the email with the signup's messages", async () => {
    expect((await subscribe("")).json()).toMatchObject({ error: "Email is required" });
    expect((await subscribe("nope")).json()).toMatchObject({ error: "Please enter a valid email address" });
    expect((await subscribe("a@b.co", "spam")).statusCode).toBe(400);
  });

  it("unsubscribes with a signed link, once; a forged or altered token is refused", async () => {
    const [row] = await subscribers();
    const token = unsubscribeToken(secret, row!.id);
    const first = await app.inject(`/api/newsletter/unsubscribe?token=${encodeURIComponent(token)}`);
    expect(first.json()).toEqual({ success: true, message: "You're unsubscribed." });
    expect((await subscribers())[0]!.unsubscribedAt).not.toBeNull();
    const again = await app.inject(`/api/newsletter/unsubscribe?token=${encodeURIComponent(token)}`);
    expect(again.json()).toEqual({ success: true, message: "You were already unsubscribed." });

    const forged = unsubscribeToken("another-secret-another-secret-12345678", row!.id);
    for (const bad of [
      forged,
      `${token}x`,
      `${row!.id}.`,
      "0000000000.abc",
      `${token[0] === "f" ? "e" : "f"}${token.slice(1)}`,
    ]) {
      const response = await app.inject(`/api/newsletter/unsubscribe?token=${encodeURIComponent(bad)}`);
      expect(response.statusCode, bad).toBe(400);
      expect(response.json()).toMatchObject({
        success: false,
        error: "This unsubscribe link is invalid or has expired.",
      });
    }
    expect((await app.inject("/api/newsletter/unsubscribe")).statusCode).toBe(400);
  });

  it("an address that unsubscribed stays unsubscribed, whoever submits it again (same answer, no change)", async () => {
    const left = (await subscribers())[0]!.unsubscribedAt;
    expect(left).not.toBeNull();
    const again = await subscribe("Reader@Example.com");
    expect(again.json()).toEqual({
      success: true,
      message: "Almost there: check your inbox and confirm your subscription.",
    });
    const signup = await app.inject({
      method: "POST",
      url: "/api/signup",
      payload: validSignup({ email: "reader@example.com", newsletter: true }),
    });
    expect(signup.statusCode).toBe(200);
    expect((await subscribers())[0]!.unsubscribedAt).toEqual(left);
  });
});
