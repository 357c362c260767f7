/**
 * The erasure notice (decision 0056) over a real SMTP server: the person gets a mail at the erased address, and once
 * it is sent — or given up after the retry window — nothing in the database holds the address any more, not even the
 * outbox row that carried it. Other mail keeps its usual retention.
 */
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTBOX_RETRY } from "../src/outbox/runner";
import { validSignup } from "./fixtures";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

interface Mail {
  to: string[];
  raw: string;
}
const mails: Mail[] = [];
/** Addresses the server refuses at RCPT TO, quoting them as real servers do. */
const refused = new Set<string>();
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onRcptTo(address, _session, callback) {
    if (refused.has(address.address)) {
      const error = Object.assign(new Error(`<${address.address}>: Recipient address rejected: mailbox full`), {
        responseCode: 452,
      });
      return callback(error);
    }
    callback();
  },
  onData(stream, session, callback) {
    let raw = "";
    stream.on("data", (chunk) => {
      raw += chunk;
    });
    stream.on("end", () => {
      mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));

const ADMIN = "notice.admin@example.com";
const { app, close } = await createTestApp({
  adminEmails: [ADMIN],
  backgroundJobs: false,
  smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
  mailFrom: "Flotilla <no-reply@flotilla.test>",
  smtpTimeoutMs: 5_000,
});
let admin: string;

beforeAll(async () => {
  admin = (await devSignIn(app, { email: ADMIN, name: "Notice Admin" })).token;
});
afterAll(async () => {
  await close();
  smtp.close();
});

const rows = async (statement: ReturnType<typeof sql>) =>
  ((await app.database.db.execute(statement)) as unknown as { rows: Record<string, unknown>[] }).rows;

/** Every text and JSON column of every table that holds the needle, case-insensitively. */
async function tablesHolding(needle: string): Promise<string[]> {
  const columns = await rows(sql`select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and data_type in ('text', 'jsonb', 'json', 'character varying')`);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const [hit] = await rows(
      sql`select count(*)::int as n from ${sql.identifier(String(table_name))}
        where ${sql.identifier(String(column_name))}::text ilike ${`%${needle}%`}`,
    );
    if (Number(hit?.n) > 0) found.push(`${table_name}.${column_name}`);
  }
  return found;
}

function decode(raw: string): string {
  return raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

async function personWithAccount(email: string) {
  expect((await app.inject({ method: "POST", url: "/api/signup", payload: validSignup({ email }) })).statusCode).toBe(
    200,
  );
  const signedIn = await devSignIn(app, { email, name: "Noah Notice" });
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    payload: { tier: "free" },
    headers: bearer(signedIn.token),
  });
  expect(created.statusCode, created.body).toBe(200);
  // Their earlier mail goes out and is kept, as any mail is, until the erasure.
  await app.outbox.runOnce();
}

const erase = (email: string) =>
  app.inject({
    method: "POST",
    url: "/api/admin/privacy/erase",
    headers: bearer(admin),
    payload: { email, reason: "Privacy request by mail" },
  });

describe("the erasure notice", () => {
  it("is mailed to the erased address, and once sent nothing in the database holds the address", async () => {
    const email = "noah.notice@example.com";
    await personWithAccount(email);
    const erased = await erase(email);
    expect(erased.statusCode, erased.body).toBe(200);
    expect(await tablesHolding(email)).toEqual(["outbox.payload"]);

    const outcome = await app.outbox.runOnce();
    expect(outcome.delivered).toBeGreaterThanOrEqual(1);
    const notice = mails.find((mail) => mail.to.includes(email) && /data has been erased/.test(mail.raw));
    expect(notice, JSON.stringify(mails.map((mail) => mail.to))).toBeDefined();
    const text = decode(notice!.raw);
    expect(text).toContain("Subject: Your Flotilla data has been erased");
    expect(text.toLowerCase()).toContain(`x-flotilla-event-id: ${erased.json().data.erasure_id}`);
    expect(text).toMatch(/we create a new, empty account/);
    expect(text).toMatch(/audit log records past changes and this erasure/);

    expect(await tablesHolding(email)).toEqual([]);
    expect(await rows(sql`select 1 from outbox where payload->>'template' = 'person.erased'`)).toEqual([]);
  });

  it("given up after the retry window (the server keeps refusing), its row goes too, quoting error and all", async () => {
    const email = "nora.refused@example.com";
    await personWithAccount(email);
    refused.add(email);
    const erased = await erase(email);
    expect(erased.statusCode, erased.body).toBe(200);

    // Refused: it waits for another try, with the server's answer (which quotes the address) as its last error.
    const first = await app.outbox.runOnce();
    expect(first.retrying).toBeGreaterThanOrEqual(1);
    const [waiting] = await rows(
      sql`select status, last_error from outbox where payload->>'template' = 'person.erased'`,
    );
    expect(waiting).toMatchObject({ status: "pending" });
    expect(String(waiting!.last_error)).toContain(email);

    // Past the retry window, the last try fails too: the row is deleted, not kept as "dead" for 30 days.
    const late = await app.outbox.runOnce(new Date(Date.now() + OUTBOX_RETRY.windowMs + 60_000));
    expect(late.dead).toBeGreaterThanOrEqual(1);
    expect(await rows(sql`select 1 from outbox where payload->>'template' = 'person.erased'`)).toEqual([]);
    expect(await tablesHolding(email)).toEqual([]);
    // Ordinary mail given up the same way stays, as before (the console shows it): only the notice is forgotten.
    const signup = await app.inject({
      method: "POST",
      url: "/api/signup",
      payload: validSignup({ email: "olive.refused@example.com" }),
    });
    expect(signup.statusCode).toBe(200);
    refused.add("olive.refused@example.com");
    await app.outbox.runOnce(new Date(Date.now() + 2 * OUTBOX_RETRY.windowMs));
    const olives = await rows(sql`select status from outbox where payload->>'to' = 'olive.refused@example.com'`);
    expect(olives.length).toBeGreaterThan(0);
    expect(olives.every((row) => row.status === "dead")).toBe(true);
  });
});
