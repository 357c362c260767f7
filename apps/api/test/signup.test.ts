import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newsletterSubscribers, signups } from "../src/db/schema";
import { validSignup } from "./fixtures";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, close } = await createTestApp());
});
afterAll(() => close());

const post = (payload: unknown) => app.inject({ method: "POST", url: "/api/signup", payload: payload as object });
const allSignups = () => app.database.db.select().from(signups);

describe("POST /api/signup", () => {
  it("stores the answers: ai_experience and platform as 'Label - description', interests comma-joined", async () => {
    const response = await post(validSignup());
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ success: true });
    const [row] = await allSignups();
    expect(row).toMatchObject({
      email: "Ada.Lovelace@Example.com",
      emailNormalized: "ada.lovelace@example.com",
      name: "Ada Lovelace",
      company: "Analytical Engines",
      role: "Tech Lead",
      aiExperience: "Advanced - Regularly use AI for complex tasks",
      platform: "macOS Desktop - Native app for macOS (beta now)",
      interests: "AI Agent Coordination, Git Integration",
      newsletter: true,
    });
  });

  it("treats the email case-insensitively: a repeat signup succeeds the same way and changes nothing", async () => {
    const first = (await allSignups())[0]!;
    // Someone else types Ada's address with other answers: acknowledged like any signup, stored answers kept.
    const again = await post(
      validSignup({ email: "ADA.LOVELACE@example.COM", name: "Not Ada", role: "Founder/CEO", newsletter: false }),
    );
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual((await post(validSignup())).json());
    const rows = await allSignups();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: first.name, role: first.role, newsletter: first.newsletter });
    expect(rows[0]!.updatedAt).toEqual(first.updatedAt);
  });

  it("subscribes signups with the newsletter on, once per email", async () => {
    await post(validSignup({ email: "grace@example.com" }));
    await post(validSignup({ email: "Grace@Example.com" }));
    await post(validSignup({ email: "linus@example.com", newsletter: false }));
    const subscribers = await app.database.db.select().from(newsletterSubscribers);
    const emails = subscribers.map((s) => s.emailNormalized).sort();
    expect(emails).toEqual(["ada.lovelace@example.com", "grace@example.com"]);
  });

  it("defaults newsletter to true and company/interests to empty", async () => {
    const { company: _c, interests: _i, newsletter: _n, ...minimal } = validSignup({ email: "min@example.com" });
    expect((await post(minimal)).statusCode).toBe(200);
    const row = (await allSignups()).find((r) => r.emailNormalized === "min@example.com");
    expect(row).toMatchObject({ newsletter: true, company: "", interests: "" });
  });

  it.each([
    [{ email: "" }, "Email is required"],
    [{ email: undefined }, "Email is required"],
    [{ email: "not-an-email" }, "Please enter a valid email address"],
    [{ email: "a b@c.d" }, "Please enter a valid email address"],
    [{ name: "   " }, "Name is required"],
    [{ role: "" }, "Please select your role"],
    [{ role: "Astronaut" }, "Please select your role"],
    [{ ai_experience: "Advanced" }, "Please select your AI experience level"],
    [{ platform: undefined }, "Please select your preferred platform"],
    [{ platform: "Linux Desktop - Native" }, "Please select your preferred platform"],
  ])("rejects %o with the spec's message", async (change, message) => {
    const body = validSignup({ email: "bad@example.com", ...change });
    const response = await post(JSON.parse(JSON.stringify(body)));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ success: false, error: message, code: "VALIDATION_ERROR" });
  });

  it("rejects unknown interests, unknown fields, wrong types and oversized values, writing nothing", async () => {
    const before = (await allSignups()).length;
    for (const body of [
      validSignup({ email: "x1@example.com", interests: "Time Travel" }),
      validSignup({ email: "x2@example.com", admin: true }),
      validSignup({ email: "x3@example.com", newsletter: "yes" }),
      validSignup({ email: "x4@example.com", name: "n".repeat(500) }),
      validSignup({ email: `${"a".repeat(250)}@example.com` }),
      [validSignup()],
      42,
    ]) {
      const response = await post(body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: expect.any(String) });
    }
    expect((await allSignups()).length).toBe(before);
  });

  it("answers malformed JSON with 400, a wrong content type with 415, an oversized body with 413", async () => {
    const malformed = await app.inject({
      method: "POST",
      url: "/api/signup",
      headers: { "content-type": "application/json" },
      payload: '{"email": "a@b.c",',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({ success: false, error: "Malformed JSON body", code: "MALFORMED_JSON" });

    const text = await app.inject({
      method: "POST",
      url: "/api/signup",
      headers: { "content-type": "text/plain" },
      payload: "hi",
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ success: false });

    const huge = await app.inject({
      method: "POST",
      url: "/api/signup",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify(validSignup({ company: "x".repeat(200_000) })),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" });
  });

  it("stores every one of 30 concurrent signups exactly once", async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `burst${i % 15}@example.com`);
    const responses = await Promise.all(
      emails.map((email, i) => post(validSignup({ email: i % 2 ? email.toUpperCase() : email }))),
    );
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    const burst = (await allSignups()).filter((r) => r.emailNormalized.startsWith("burst"));
    expect(burst).toHaveLength(15);
  });
});
