/** Webhook endpoints for admins: register, change, enable/disable, rotate the secret, deliveries, resend, test. */

import { randomBytes, randomUUID } from "node:crypto";
import type { CreateWebhookSchema, UpdateWebhookSchema } from "@flotilla/contracts/admin";
import { ADMIN_ERRORS } from "@flotilla/contracts/admin";
import { WEBHOOK_TEST_EVENT, type WebhookPayload } from "@flotilla/contracts/events";
import { and, desc, eq, lt } from "drizzle-orm";
import type { z } from "zod";
import type { Database } from "../../db/client";
import { outbox, webhookDeliveries, webhookEndpoints } from "../../db/schema";
import {
  type Resolve,
  resolvedUrlProblem,
  systemResolve,
  type UrlPolicy,
  webhookUrlProblem,
} from "../../lib/net-guard";
import { encryptSecret } from "../../lib/secrets";
import { WEBHOOK_SECRET_PURPOSE } from "../../outbox/runner";
import { SECRET_PREFIX } from "../../outbox/signature";
import { HttpProblem } from "../../plugins/errors";
import { type Actor, recordEvent } from "../events/record";
import { pageOf, seqCursor, UUID } from "./pagination";

/** After a rotation the previous secret keeps signing (a second v1) this long. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

type Endpoint = typeof webhookEndpoints.$inferSelect;

function view(row: Endpoint) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The part of a row the audit log may keep: never the secret. */
const audited = (row: Endpoint) => ({
  url: row.url,
  events: row.events,
  enabled: row.enabled,
  description: row.description,
});

/** `whsec_` and 32 random bytes in standard base64: the form Standard Webhooks libraries read (decision 0044). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

export class WebhookAdmin {
  constructor(
    private readonly db: Database,
    private readonly appSecret: string,
    private readonly policy: UrlPolicy,
    /** DNS for the registration's check (tests answer for it). */
    private readonly resolve: Resolve = systemResolve,
  ) {}

  /** The URL's own rules, then (production policy) the addresses its name resolves to now; delivery checks again. */
  private async checkUrl(url: string) {
    const problem = webhookUrlProblem(url, this.policy) ?? (await resolvedUrlProblem(url, this.policy, this.resolve));
    if (problem) throw new HttpProblem(400, problem, "INVALID_WEBHOOK_URL");
  }

  private async find(id: string): Promise<Endpoint> {
    if (!UUID.test(id)) throw new HttpProblem(404, ADMIN_ERRORS.endpointNotFound, "NOT_FOUND");
    const [row] = await this.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    if (!row) throw new HttpProblem(404, ADMIN_ERRORS.endpointNotFound, "NOT_FOUND");
    return row;
  }

  async list() {
    const rows = await this.db.select().from(webhookEndpoints).orderBy(desc(webhookEndpoints.createdAt));
    return rows.map(view);
  }

  async get(id: string) {
    return view(await this.find(id));
  }

  async create(input: z.output<typeof CreateWebhookSchema>, actor: Actor, address: string) {
    await this.checkUrl(input.url);
    const secret = newWebhookSecret();
    const row = await this.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(webhookEndpoints)
        .values({
          url: input.url,
          description: input.description,
          events: [...new Set(input.events)],
          secretCiphertext: encryptSecret(this.appSecret, WEBHOOK_SECRET_PURPOSE, secret),
          createdBy: actor.email ?? actor.id ?? actor.type,
        })
        .returning();
      await recordEvent(tx, {
        type: "webhook.endpoint_created",
        actor,
        target: { type: "webhook_endpoint", id: created!.id },
        before: null,
        after: audited(created!),
        address,
      });
      return created!;
    });
    return { data: view(row), secret };
  }

  async update(id: string, input: z.output<typeof UpdateWebhookSchema>, actor: Actor, address: string) {
    if (input.url !== undefined) await this.checkUrl(input.url);
    // Looked up before the transaction: a query on `this.db` inside it waits for the transaction's own
    // connection on PGlite (one connection), and so never runs.
    const found = await this.find(id);
    return this.db.transaction(async (tx) => {
      const [current] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, found.id)).for("update");
      if (!current) throw new HttpProblem(404, ADMIN_ERRORS.endpointNotFound, "NOT_FOUND");
      const [updated] = await tx
        .update(webhookEndpoints)
        .set({
          ...(input.url !== undefined ? { url: input.url } : {}),
          ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.enabled !== undefined
            ? { enabled: input.enabled, disabledReason: input.enabled ? null : "Disabled by an admin" }
            : {}),
          updatedAt: new Date(),
        })
        .where(eq(webhookEndpoints.id, current!.id))
        .returning();
      await recordEvent(tx, {
        type: "webhook.endpoint_updated",
        actor,
        target: { type: "webhook_endpoint", id: current!.id },
        before: audited(current!),
        after: audited(updated!),
        address,
      });
      return view(updated!);
    });
  }

  async remove(id: string, actor: Actor, address: string) {
    const current = await this.find(id);
    await this.db.transaction(async (tx) => {
      await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, current.id));
      await recordEvent(tx, {
        type: "webhook.endpoint_deleted",
        actor,
        target: { type: "webhook_endpoint", id: current.id },
        before: audited(current),
        after: null,
        address,
      });
    });
  }

  /** A new secret, shown once; the previous one keeps signing beside it for a day. */
  async rotateSecret(id: string, actor: Actor, address: string) {
    const current = await this.find(id);
    const secret = newWebhookSecret();
    const now = new Date();
    const row = await this.db.transaction(async (tx) => {
      const [updated] = await tx
        .update(webhookEndpoints)
        .set({
          secretCiphertext: encryptSecret(this.appSecret, WEBHOOK_SECRET_PURPOSE, secret),
          previousSecretCiphertext: current.secretCiphertext,
          previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
          updatedAt: now,
        })
        .where(eq(webhookEndpoints.id, current.id))
        .returning();
      await recordEvent(tx, {
        type: "webhook.secret_rotated",
        actor,
        target: { type: "webhook_endpoint", id: current.id },
        before: null,
        after: { previous_secret_valid_until: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString() },
        address,
      });
      return updated!;
    });
    return { data: view(row), secret };
  }

  /** Queues a "webhook.test" event for this endpoint only (delivered like any other, even when disabled? no: enabled only). */
  async sendTest(id: string) {
    const endpoint = await this.find(id);
    const eventId = randomUUID();
    const payload: WebhookPayload = {
      id: eventId,
      type: WEBHOOK_TEST_EVENT,
      created: new Date().toISOString(),
      data: { target: { type: "webhook_endpoint", id: endpoint.id }, before: null, after: { message: "Test event" } },
    };
    await this.db.insert(outbox).values({ eventId, channel: "webhook", endpointId: endpoint.id, payload });
    return eventId;
  }

  async deliveries(id: string, query: { cursor?: string; limit: number }) {
    const endpoint = await this.find(id);
    const cursor = seqCursor(query.cursor);
    const rows = await this.db
      .select({
        delivery: webhookDeliveries,
        status: outbox.status,
        attempts: outbox.attempts,
        nextAttemptAt: outbox.nextAttemptAt,
      })
      .from(webhookDeliveries)
      .leftJoin(outbox, eq(outbox.id, webhookDeliveries.outboxId))
      .where(
        and(
          eq(webhookDeliveries.endpointId, endpoint.id),
          cursor !== null ? lt(webhookDeliveries.seq, cursor) : undefined,
        ),
      )
      .orderBy(desc(webhookDeliveries.seq))
      .limit(query.limit + 1);
    const page = pageOf(rows, query.limit, (row) => [row.delivery.seq]);
    return {
      data: page.data.map(({ delivery: row, status, attempts, nextAttemptAt }) => {
        // What becomes of a failed attempt, said on the delivery's latest one: retried at a time, or given up.
        const latest = attempts === row.attempt;
        return {
          id: row.id,
          event_id: row.eventId,
          event_type: row.eventType,
          attempt: row.attempt,
          status_code: row.statusCode,
          error: row.error,
          duration_ms: row.durationMs,
          created_at: row.createdAt.toISOString(),
          next_attempt_at: latest && status === "pending" && nextAttemptAt ? nextAttemptAt.toISOString() : null,
          gave_up: latest && status === "dead",
        };
      }),
      next_cursor: page.next_cursor,
    };
  }

  /** Sends the delivery's event again, with the same event id (receivers dedupe on it). */
  async resend(id: string, deliveryId: string) {
    const endpoint = await this.find(id);
    if (!UUID.test(deliveryId)) throw new HttpProblem(404, ADMIN_ERRORS.deliveryNotFound, "NOT_FOUND");
    const [delivery] = await this.db
      .select({ payload: outbox.payload, eventId: outbox.eventId })
      .from(webhookDeliveries)
      .innerJoin(outbox, eq(outbox.id, webhookDeliveries.outboxId))
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpoint.id)));
    if (!delivery) throw new HttpProblem(404, ADMIN_ERRORS.deliveryNotFound, "NOT_FOUND");
    await this.db.insert(outbox).values({
      eventId: delivery.eventId,
      channel: "webhook",
      endpointId: endpoint.id,
      payload: delivery.payload,
    });
    return delivery.eventId;
  }
}
