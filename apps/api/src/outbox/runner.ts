/**
 * Delivers the outbox, at least once. Every instance may run the runner; a row is claimed with FOR UPDATE SKIP
 * LOCKED and a lease (locked_until), so two runners never hold the same row, and a runner killed mid-delivery only
 * delays it until the lease ends (then it is sent again: receivers dedupe on the event id). Failures are retried
 * with exponential backoff and jitter for up to three days; then the row is given up ("dead") and, for a webhook,
 * its endpoint is disabled (decision 0031).
 */
import { WEBHOOK_RETRY_WINDOW_HOURS, type WebhookPayload } from "@flotilla/contracts/events";
import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { outbox, webhookDeliveries, webhookEndpoints } from "../db/schema";
import type { Resolve, UrlPolicy } from "../lib/net-guard";
import { decryptSecret } from "../lib/secrets";
import { recordEvent } from "../modules/events/record";
import type { MailSender } from "./mail";
import { type MailContext, type MailJob, renderMail } from "./mail-templates";
import { sendWebhook } from "./webhooks";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const OUTBOX_RETRY = {
  baseMs: 30_000,
  capMs: 6 * HOUR_MS,
  windowMs: WEBHOOK_RETRY_WINDOW_HOURS * HOUR_MS,
  // Longer than any one delivery can take (WEBHOOK_TIMEOUT_MS and SMTP_TIMEOUT_MS are at most 60 s): a runner that is
  // still delivering never loses its rows to another runner.
  leaseMs: 2 * MINUTE_MS,
  batch: 25,
} as const;

export const WEBHOOK_SECRET_PURPOSE = "webhook-secret";

/** Attempt n (1-based) failed: wait base·2^(n-1), capped, times a random factor in [0.5, 1) (no herd). */
export function retryDelayMs(attempt: number, random = Math.random): number {
  const exponential = Math.min(OUTBOX_RETRY.capMs, OUTBOX_RETRY.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.5 + random() * 0.5));
}

interface ClaimedRow {
  id: string;
  event_id: string;
  channel: "webhook" | "email";
  endpoint_id: string | null;
  payload: unknown;
  attempts: number;
  created_at: Date | string;
}

export interface RunOutcome {
  claimed: number;
  delivered: number;
  retrying: number;
  dead: number;
}

export interface OutboxRunnerOptions {
  mail: MailSender;
  mailContext: MailContext;
  appSecret: string;
  policy: UrlPolicy;
  /** DNS for webhook receivers (tests answer for it); the system's by default. */
  resolve?: Resolve;
  webhookTimeoutMs: number;
  intervalMs: number;
  log: { info(details: object, message: string): void; error(details: object, message: string): void };
  random?: () => number;
}

export class OutboxRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<RunOutcome> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly options: OutboxRunnerOptions,
  ) {}

  start() {
    this.timer = setInterval(() => {
      if (!this.running) void this.runOnce().catch(() => undefined);
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One round: claim what is due, deliver it, record the outcomes. Rounds on one instance never overlap. */
  async runOnce(now = new Date()): Promise<RunOutcome> {
    if (this.stopped) return { claimed: 0, delivered: 0, retrying: 0, dead: 0 };
    while (this.running) await this.running.catch(() => undefined);
    this.running = this.round(now).catch((error: unknown) => {
      this.options.log.error({ err: error }, "outbox round failed");
      return { claimed: 0, delivered: 0, retrying: 0, dead: 0 };
    });
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  private async claim(now: Date): Promise<ClaimedRow[]> {
    const at = now.toISOString();
    const lease = new Date(now.getTime() + OUTBOX_RETRY.leaseMs).toISOString();
    const result = (await this.db.execute(sql`
      update outbox set locked_until = ${lease}::timestamptz, attempts = attempts + 1
      where id in (
        select o.id from outbox o left join webhook_endpoints e on e.id = o.endpoint_id
        where o.status = 'pending' and o.next_attempt_at <= ${at}::timestamptz
          and (o.locked_until is null or o.locked_until < ${at}::timestamptz)
          and (o.channel = 'email' or e.enabled)
        order by o.next_attempt_at, o.seq
        limit ${OUTBOX_RETRY.batch}
        for update of o skip locked)
      returning id, event_id, channel, endpoint_id, payload, attempts, created_at`)) as unknown as {
      rows: ClaimedRow[];
    };
    return result.rows;
  }

  private async round(now: Date): Promise<RunOutcome> {
    const outcome: RunOutcome = { claimed: 0, delivered: 0, retrying: 0, dead: 0 };
    const rows = await this.claim(now);
    outcome.claimed = rows.length;
    await Promise.all(
      rows.map(async (row) => {
        const result = await this.deliver(row, now).catch((error: unknown) => ({
          ok: false,
          error: error instanceof Error ? error.message : String(error),
        }));
        await this.settle(row, result, now, outcome);
      }),
    );
    if (outcome.claimed > 0) this.options.log.info({ ...outcome }, "outbox round");
    return outcome;
  }

  private async deliver(row: ClaimedRow, now: Date): Promise<{ ok: boolean; error: string | null }> {
    if (row.channel === "email") {
      const job = row.payload as MailJob;
      await this.options.mail.send(row.event_id, job.to, renderMail(job, this.options.mailContext));
      return { ok: true, error: null };
    }
    const [endpoint] = await this.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, row.endpoint_id!));
    if (!endpoint) return { ok: false, error: "endpoint deleted" };
    const secrets = [decryptSecret(this.options.appSecret, WEBHOOK_SECRET_PURPOSE, endpoint.secretCiphertext)];
    if (
      endpoint.previousSecretCiphertext &&
      endpoint.previousSecretExpiresAt &&
      endpoint.previousSecretExpiresAt > now
    ) {
      secrets.push(decryptSecret(this.options.appSecret, WEBHOOK_SECRET_PURPOSE, endpoint.previousSecretCiphertext));
    }
    const payload = row.payload as WebhookPayload;
    const attempt = await sendWebhook(
      { url: endpoint.url, secrets, eventId: payload.id, eventType: payload.type, body: JSON.stringify(payload) },
      { policy: this.options.policy, timeoutMs: this.options.webhookTimeoutMs, resolve: this.options.resolve },
    );
    await this.db.insert(webhookDeliveries).values({
      outboxId: row.id,
      endpointId: endpoint.id,
      eventId: payload.id,
      eventType: payload.type,
      attempt: row.attempts,
      statusCode: attempt.statusCode,
      error: attempt.error,
      durationMs: attempt.durationMs,
    });
    return {
      ok: attempt.ok,
      error: attempt.ok ? null : (attempt.error ?? `HTTP ${attempt.statusCode}`),
    };
  }

  private async settle(row: ClaimedRow, result: { ok: boolean; error: string | null }, now: Date, outcome: RunOutcome) {
    if (result.ok) {
      outcome.delivered += 1;
      await this.db
        .update(outbox)
        .set({ status: "delivered", finishedAt: now, lockedUntil: null, lastError: null })
        .where(eq(outbox.id, row.id));
      return;
    }
    const age = now.getTime() - new Date(row.created_at).getTime();
    const next = new Date(now.getTime() + retryDelayMs(row.attempts, this.options.random));
    if (age + (next.getTime() - now.getTime()) <= OUTBOX_RETRY.windowMs && result.error !== "endpoint deleted") {
      outcome.retrying += 1;
      await this.db
        .update(outbox)
        .set({ nextAttemptAt: next, lockedUntil: null, lastError: result.error })
        .where(eq(outbox.id, row.id));
      return;
    }
    outcome.dead += 1;
    await this.db.transaction(async (tx) => {
      await tx
        .update(outbox)
        .set({ status: "dead", finishedAt: now, lockedUntil: null, lastError: result.error })
        .where(eq(outbox.id, row.id));
      if (row.channel !== "webhook" || !row.endpoint_id) return;
      const [disabled] = await tx
        .update(webhookEndpoints)
        .set({
          enabled: false,
          disabledReason: `Deliveries failed for ${WEBHOOK_RETRY_WINDOW_HOURS} hours (last: ${result.error ?? "no answer"})`,
          updatedAt: now,
        })
        .where(sql`${webhookEndpoints.id} = ${row.endpoint_id} and ${webhookEndpoints.enabled}`)
        .returning({ id: webhookEndpoints.id, url: webhookEndpoints.url, reason: webhookEndpoints.disabledReason });
      if (disabled) {
        await recordEvent(tx, {
          type: "webhook.endpoint_disabled",
          actor: { type: "system", id: "outbox-runner" },
          target: { type: "webhook_endpoint", id: disabled.id },
          before: { enabled: true },
          after: { enabled: false, disabled_reason: disabled.reason },
        });
      }
    });
    this.options.log.error({ outboxId: row.id, channel: row.channel, error: result.error }, "outbox delivery given up");
  }
}
