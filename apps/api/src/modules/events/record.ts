/**
 * The one way to record a state change: `recordEvent(tx, event)` writes the audit row and, in the same
 * transaction, the outbox rows that report it — one per enabled webhook endpoint subscribed to the event, and the
 * mail the event sends (if any). Call it with the transaction that makes the change: the change, its audit record
 * and its notifications commit together or not at all (decision 0030).
 */

import { randomUUID } from "node:crypto";
import { type ActorType, EVENT_TYPES, type EventType, type WebhookPayload } from "@flotilla/contracts/events";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { auditEvents, customers, licenses, outbox, webhookEndpoints } from "../../db/schema";
import { MAIL_TEMPLATES, type MailJob } from "../../outbox/mail-templates";
import { auditNetwork, auditText, withoutPersonalData } from "./pseudonymous";

/**
 * Who made the change. A customer actor is someone signed in (their id is required); nobody signed in is
 * "anonymous", which carries no id and no email: whatever address a stranger typed is the target's (decision 0030).
 * The log names every actor by id only (decision 0053): an actor's email serves checks such as "not your own
 * role", and is never recorded.
 */
export type Actor =
  | { type: "customer"; id: string; email?: string | null }
  | {
      type: Exclude<ActorType, "customer" | "anonymous">;
      /** Admin's customer id, or the name of the service part ("license-api", "admin-cli"…). */
      id?: string | null;
      email?: string | null;
    }
  | { type: "anonymous"; id?: never; email?: never };

export interface EventInput {
  type: EventType;
  actor: Actor;
  /** An id, never an address: one that looks like an email is recorded as REDACTED. */
  target: { type: string; id: string };
  /** What the webhook and mail report; the log keeps them withoutPersonalData. */
  before?: unknown;
  after?: unknown;
  /** The client address of the request that made the change (request.ip), if a request did; the log keeps its network. */
  address?: string | null;
  /** Why (admin actions on licenses require one). */
  reason?: string | null;
  /** The customer the event concerns; with licenseId, it appears in their activity. */
  customerId?: string | null;
  licenseId?: string | null;
  /** Where the event's mail goes, when its type sends one; default: the owner of licenseId / customerId. */
  recipient?: string | null;
}

export interface RecordedEvent {
  id: string;
  occurredAt: Date;
}

/** Anything that runs queries: the database or a transaction of it. */
export type Tx = Pick<Database, "insert" | "select" | "execute">;

const json = (value: unknown) => (value === undefined ? null : value);

async function ownerOf(tx: Tx, input: EventInput): Promise<{ customerId: string | null; email: string | null }> {
  if (input.licenseId) {
    const [row] = await tx
      .select({ customerId: customers.id, email: customers.email })
      .from(licenses)
      .innerJoin(customers, eq(customers.id, licenses.customerId))
      .where(eq(licenses.id, input.licenseId));
    if (row) return row;
  }
  if (input.customerId) {
    const [row] = await tx
      .select({ customerId: customers.id, email: customers.email })
      .from(customers)
      .where(eq(customers.id, input.customerId));
    if (row) return row;
  }
  return { customerId: input.customerId ?? null, email: null };
}

export async function recordEvent(tx: Tx, input: EventInput): Promise<RecordedEvent> {
  if (!(input.type in EVENT_TYPES)) throw new Error(`unknown event type ${input.type}`);
  const template = MAIL_TEMPLATES[input.type];
  const needsOwner = Boolean((input.licenseId && !input.customerId) || (template && !input.recipient));
  const owner = needsOwner ? await ownerOf(tx, input) : { customerId: input.customerId ?? null, email: null };
  const [row] = await tx
    .insert(auditEvents)
    .values({
      type: input.type,
      actorType: input.actor.type,
      // Everyone by id, admins too: the console shows an admin's current address beside it (decision 0053).
      actorId: auditText(input.actor.id ?? null),
      targetType: input.target.type,
      targetId: auditText(input.target.id),
      customerId: owner.customerId,
      licenseId: input.licenseId ?? null,
      before: withoutPersonalData(input.before),
      after: withoutPersonalData(input.after),
      reason: auditText(input.reason ?? null),
      address: auditNetwork(input.address),
    })
    .returning({ id: auditEvents.id, occurredAt: auditEvents.occurredAt });
  if (!row) throw new Error("audit insert returned no row");

  if (EVENT_TYPES[input.type].webhook) {
    const payload: WebhookPayload = {
      id: row.id,
      type: input.type,
      created: row.occurredAt.toISOString(),
      data: { target: input.target, before: json(input.before), after: json(input.after) },
    };
    const endpoints = await tx
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.enabled, true),
          sql`${webhookEndpoints.events} @> ${JSON.stringify([input.type])}::jsonb`,
        ),
      );
    if (endpoints.length > 0) {
      await tx
        .insert(outbox)
        .values(
          endpoints.map((endpoint) => ({ eventId: row.id, channel: "webhook", endpointId: endpoint.id, payload })),
        );
    }
  }

  if (template) {
    const to = input.recipient ?? owner.email;
    if (to) {
      const job: MailJob = {
        template: input.type,
        to,
        data: { target: input.target, before: json(input.before), after: json(input.after) },
      };
      await tx.insert(outbox).values({ eventId: row.id, channel: "email", payload: job });
    }
  }
  return row;
}

/**
 * Webhooks for changes the log records as a summary rather than a row each (decision 0058: the machines the culling
 * job releases): the payload recordEvent would send, each with an event id of its own, written to the outbox in the
 * caller's transaction. One read of the endpoints for all of them, nothing written when no enabled endpoint subscribes.
 * Returns the outbox rows written.
 */
export async function sendWebhooksOnly(
  tx: Tx,
  type: EventType,
  events: { target: { type: string; id: string }; before?: unknown; after?: unknown }[],
  occurredAt: Date,
): Promise<number> {
  if (events.length === 0 || !EVENT_TYPES[type].webhook) return 0;
  const endpoints = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(eq(webhookEndpoints.enabled, true), sql`${webhookEndpoints.events} @> ${JSON.stringify([type])}::jsonb`),
    );
  if (endpoints.length === 0) return 0;
  const rows = events.flatMap((event) => {
    const payload: WebhookPayload = {
      id: randomUUID(),
      type,
      created: occurredAt.toISOString(),
      data: { target: event.target, before: json(event.before), after: json(event.after) },
    };
    return endpoints.map((endpoint) => ({ eventId: payload.id, channel: "webhook", endpointId: endpoint.id, payload }));
  });
  // In slices: one statement's parameters are bounded (65,535).
  for (let from = 0; from < rows.length; from += 1_000) await tx.insert(outbox).values(rows.slice(from, from + 1_000));
  return rows.length;
}
