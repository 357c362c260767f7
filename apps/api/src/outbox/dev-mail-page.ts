/**
 * /dev/mail: the development mail outbox (mail kept in dev_mail when SMTP_URL is not set), newest first, with each
 * mail's text and a link to its HTML part. Registered only where exposure.ts allows it (loopback, outside production):
 * on any server others can reach the route does not exist.
 */
import { desc, eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { Database } from "../db/client";
import { devMail } from "../db/schema";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function registerDevMailPage(app: FastifyInstance, db: Database) {
  app.get("/dev/mail", { schema: { hide: true } }, async (_request, reply) => {
    const rows = await db.select().from(devMail).orderBy(desc(devMail.seq)).limit(100);
    const items = rows
      .map(
        (row) => `<article><h2>${escapeHtml(row.subject)}</h2>
<p>To: ${escapeHtml(row.recipient)} · ${row.createdAt.toISOString()} · <a href="/dev/mail/${row.id}">HTML</a></p>
${Object.entries(row.headers)
  .map(([name, value]) => `<p><code>${escapeHtml(name)}: ${escapeHtml(value)}</code></p>`)
  .join("")}
<pre>${escapeHtml(row.text)}</pre></article><hr>`,
      )
      .join("\n");
    reply.type("text/html; charset=utf-8").header("cache-control", "no-store");
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Development mail</title></head><body>
<h1>Development mail</h1><p>Mail the service would have sent (no SMTP_URL is set). Newest first, last 100.</p>
${items || "<p>No mail yet.</p>"}</body></html>`;
  });

  app.get<{ Params: { id: string } }>("/dev/mail/:id", { schema: { hide: true } }, async (request, reply) => {
    const id = request.params.id;
    const [row] = UUID.test(id) ? await db.select().from(devMail).where(eq(devMail.id, id)) : [];
    if (!row) return reply.code(404).type("text/plain").send("No such mail");
    // The mail's HTML runs nothing and loads nothing here.
    reply
      .type("text/html; charset=utf-8")
      .header("content-security-policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'")
      .header("cache-control", "no-store");
    return row.html;
  });
}
