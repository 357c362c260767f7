/**
 * Delivers the outbox, at least once. Every instance may run the runner; a row is claimed with FOR UPDATE SKIP
 * LOCKED and a lease (locked_until), so two runners never hold the same row, and a runner killed mid-delivery only
 * delays it until the lease ends (then it is sent again: receivers dedupe on the event id). Failures are retried
 * with exponential backoff and jitter for up to three days; then the row is given up ("dead") and, for a webhook,
 * its endpoint is disabled (decision 0031).
 *
 * The database may go away mid-round (a restart, a failover): an outcome that cannot be recorded then is kept in
 * memory and recorded by the next rounds, before they claim anything, while this runner's lease on the row lasts — a
 * delivery that happened is marked delivered (not sent again when the lease ends), one that never started because the
 * database failed first (the endpoint could not be read) is released for the next round. A runner that dies meanwhile
 * leaves only the lease, as before: the row is sent again when it ends (decision 0037).
 */
import { WEBHOOK_RETRY_WINDOW_HOURS, type WebhookPayload } from "@flotilla/contracts/events";
import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { outbox, webhookDeliveries, webhookEndpoints } from "../db/schema";
import type { Resolve, UrlPolicy } from "../lib/net-guard";
import { isPeerUnavailable } from "../lib/peer-waits";
import { decryptSecret } from "../lib/secrets";
import { auditText } from "../modules/events/pseudonymous";
import { recordEvent } from "../modules/events/record";
import type { MailSender } from "./mail";
import { forgottenOnceSent, type MailContext, type MailJob, renderMail } from "./mail-templates";
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

/**
 * What became of one delivery: `sent` false when nothing reached the receiver because the database failed first
 * (the row is released, not counted as an attempt); `record` is the attempt for webhook_deliveries, written with the
 * row's outcome.
 */
interface Delivery {
  ok: boolean;
  error: string | null;
  sent: boolean;
  record?: typeof webhookDeliveries.$inferInsert;
}

/** An outcome the database did not take: recorded by a later round while `lease` (ours on the row) lasts. */
interface Unsettled {
  row: ClaimedRow;
  lease: Date;
  delivery: Delivery;
  now: Date;
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
  log: {
    info(details: object, message: string): void;
    warn(details: object, message: string): void;
    error(details: object, message: string): void;
  };
  random?: () => number;
}

export class OutboxRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<RunOutcome> | null = null;
  private stopped = false;
  /** Outcomes a round could not record because the database went away, by row id. */
  private readonly unsettled = new Map<string, Unsettled>();

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
    // One last try for outcomes the database did not take (bounded by its own waits); else the leases end them.
    await this.settleLeftovers(new Date(), { claimed: 0, delivered: 0, retrying: 0, dead: 0 }).catch(() => undefined);
  }

  /** Outcomes waiting for the database to come back (tests, metrics). */
  get unsettledCount(): number {
    return this.unsettled.size;
  }

  /** One round: claim what is due, deliver it, record the outcomes. Rounds on one instance never overlap. */
  async runOnce(now = new Date()): Promise<RunOutcome> {
    if (this.stopped) return { claimed: 0, delivered: 0, retrying: 0, dead: 0 };
    while (this.running) await this.running.catch(() => undefined);
    this.running = this.round(now).catch((error: unknown) => {
      if (isPeerUnavailable(error)) {
        // The database is away (a restart, a stall): the next round tries again; nothing is lost meanwhile.
        this.options.log.warn(
          { err: error instanceof Error ? error.message : String(error), unsettled: this.unsettled.size },
          "outbox round: the database did not answer",
        );
      } else {
        this.options.log.error({ err: error }, "outbox round failed");
      }
      return { claimed: 0, delivered: 0, retrying: 0, dead: 0 };
    });
    try {
      return await this.running;
    } finally {
      this.running = null;
    }
  }

  private async claim(now: Date, leaseUntil: Date): Promise<ClaimedRow[]> {
    const at = now.toISOString();
    const lease = leaseUntil.toISOString();
    const result = (await this.db.execute(sql`
      update outbox set locked_until = ${lease}::timestamptz, attempts = attempts + 1
      where id in (
        select o.id from outbox o left join webhook_endpoints e on e.id = o.endpoint_id
        where o.status = 'pending'
          -- Compared at the runner's precision (JavaScript's milliseconds): a row written within the same millisecond
          -- as \`now\`, microseconds later by the database's clock, is due too.
          and o.next_attempt_at < ${at}::timestamptz + interval '1 millisecond'
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
    // First what an earlier round could not record: a row released here is due again, and claimed below.
    await this.settleLeftovers(now, outcome);
    const lease = new Date(now.getTime() + OUTBOX_RETRY.leaseMs);
    const rows = await this.claim(now, lease);
    outcome.claimed = rows.length;
    // Every row's delivery ends before the round does (allSettled): rounds on one instance never overlap.
    const settled = await Promise.allSettled(
      rows.map(async (row) => {
        const delivery = await this.deliver(row, now).catch(
          (error: unknown): Delivery => ({
            ok: false,
            error: error instanceof Error ? error.message : String(error),
            sent: true,
          }),
        );
        try {
          await this.settle(row, lease, delivery, now, outcome);
        } catch (error) {
          // The database went away after the delivery: keep its outcome for the next rounds.
          if (isPeerUnavailable(error)) this.unsettled.set(row.id, { row, lease, delivery, now });
          throw error;
        }
      }),
    );
    if (outcome.claimed > 0) this.options.log.info({ ...outcome }, "outbox round");
    const failure = settled.find((result) => result.status === "rejected");
    if (failure) throw failure.reason;
    return outcome;
  }

  /**
   * Records the outcomes the database did not take, oldest first, while this runner still holds their rows; stops at
   * the first that fails (the database is still away). A lease that has ended is let go: another runner may have
   * claimed the row since, and sends it again (at least once).
   */
  private async settleLeftovers(now: Date, outcome: RunOutcome) {
    for (const [id, left] of this.unsettled) {
      if (left.lease.getTime() <= now.getTime()) {
        this.unsettled.delete(id);
        continue;
      }
      await this.settle(left.row, left.lease, left.delivery, left.now, outcome);
      this.unsettled.delete(id);
    }
  }

  private async deliver(row: ClaimedRow, now: Date): Promise<Delivery> {
    if (row.channel === "email") {
      const job = row.payload as MailJob;
      await this.options.mail.send(row.event_id, job.to, renderMail(job, this.options.mailContext, row.event_id));
      return { ok: true, error: null, sent: true };
    }
    let endpoint: typeof webhookEndpoints.$inferSelect | undefined;
    try {
      [endpoint] = await this.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, row.endpoint_id!));
    } catch (error) {
      // Nothing was sent: the database failed first. Not an attempt; the row goes back to the queue.
      if (isPeerUnavailable(error)) return { ok: false, error: (error as Error).message, sent: false };
      throw error;
    }
    if (!endpoint) return { ok: false, error: "endpoint deleted", sent: true };
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
    return {
      ok: attempt.ok,
      error: attempt.ok ? null : (attempt.error ?? `HTTP ${attempt.statusCode}`),
      sent: true,
      // Written with the row's outcome (settle): a database gone after the send must not turn a delivery into a
      // failure that sends it again.
      record: {
        outboxId: row.id,
        endpointId: endpoint.id,
        eventId: payload.id,
        eventType: payload.type,
        attempt: row.attempts,
        statusCode: attempt.statusCode,
        error: attempt.error,
        durationMs: attempt.durationMs,
      },
    };
  }

  /**
   * Records a delivery's outcome, with its attempt, in one transaction — only while `lease` still holds the row: a
   * runner whose lease ended (another may hold the row now) changes nothing but the attempt's record.
   */
  private async settle(row: ClaimedRow, lease: Date, delivery: Delivery, now: Date, outcome: RunOutcome) {
    const ours = sql`${outbox.id} = ${row.id} and ${outbox.lockedUntil} = ${lease.toISOString()}::timestamptz`;
    if (!delivery.sent) {
      await this.db
        .update(outbox)
        .set({ lockedUntil: null, attempts: sql`greatest(${outbox.attempts} - 1, 0)` })
        .where(ours);
      return;
    }
    // A failure is the last when the next try would fall outside the retry window, or cannot succeed.
    const next = delivery.ok ? null : new Date(now.getTime() + retryDelayMs(row.attempts, this.options.random));
    const age = now.getTime() - new Date(row.created_at).getTime();
    const lastTry =
      next !== null &&
      (age + (next.getTime() - now.getTime()) > OUTBOX_RETRY.windowMs || delivery.error === "endpoint deleted");
    // A mail kept only until it is sent (the erasure notice, decision 0056): delivered or given up, its row goes.
    const forget = row.channel === "email" && forgottenOnceSent(row.payload as MailJob);
    if (forget && (delivery.ok || lastTry)) {
      if (delivery.ok) outcome.delivered += 1;
      else outcome.dead += 1;
      const [gone] = await this.db.delete(outbox).where(ours).returning({ id: outbox.id });
      if (gone && !delivery.ok) {
        // Its error may quote the address the mail was for: the log keeps it without.
        this.options.log.error(
          { outboxId: row.id, channel: row.channel, error: auditText(delivery.error) },
          "outbox delivery given up",
        );
      }
      return;
    }
    if (delivery.ok) {
      outcome.delivered += 1;
      await this.db.transaction(async (tx) => {
        if (delivery.record) await tx.insert(webhookDeliveries).values(delivery.record);
        await tx
          .update(outbox)
          .set({ status: "delivered", finishedAt: now, lockedUntil: null, lastError: null })
          .where(ours);
      });
      return;
    }
    if (next && !lastTry) {
      outcome.retrying += 1;
      await this.db.transaction(async (tx) => {
        if (delivery.record) await tx.insert(webhookDeliveries).values(delivery.record);
        await tx.update(outbox).set({ nextAttemptAt: next, lockedUntil: null, lastError: delivery.error }).where(ours);
      });
      return;
    }
    outcome.dead += 1;
    let givenUp = false;
    await this.db.transaction(async (tx) => {
      if (delivery.record) await tx.insert(webhookDeliveries).values(delivery.record);
      const [dead] = await tx
        .update(outbox)
        .set({ status: "dead", finishedAt: now, lockedUntil: null, lastError: delivery.error })
        .where(ours)
        .returning({ id: outbox.id });
      givenUp = Boolean(dead);
      if (!dead || row.channel !== "webhook" || !row.endpoint_id) return;
      const [disabled] = await tx
        .update(webhookEndpoints)
        .set({
          enabled: false,
          disabledReason: `Deliveries failed for ${WEBHOOK_RETRY_WINDOW_HOURS} hours (last: ${delivery.error ?? "no answer"})`,
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
    if (givenUp) {
      this.options.log.error(
        { outboxId: row.id, channel: row.channel, error: delivery.error },
        "outbox delivery given up",
      );
    }
  }
}
