/**
 * Data retention: every table that grows with traffic is pruned by the service itself, in batches, on one
 * instance at a time (scheduler.ts). Business records — signups, subscribers, customers, licenses, machines and
 * device removals — are kept; what is pruned is what only serves a bounded purpose.
 *
 * Each transaction is one batch (decision 0058): at most RETENTION_BATCH rows of each table, found through an index on
 * the age it is pruned by (migration 0017), so a batch costs the same on a small database and a large one; a run
 * repeats batches while one was full, up to RETENTION_MAX_BATCHES.
 */
import { RETENTION } from "@flotilla/contracts/retention";
import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import type { Job } from "./scheduler";

/** How long things are kept: packages/contracts/src/retention.ts (the privacy policy states the same numbers). */
export { RETENTION };

export const RETENTION_INTERVAL_MS = 10 * 60 * 1000;
/** Rows deleted per statement: each stays short. */
export const RETENTION_BATCH = 5_000;
/**
 * Batches (transactions) per run: up to 250,000 rows per table every 10 minutes, far above what the rate limits let
 * traffic add; a larger backlog drains over several runs.
 */
export const RETENTION_MAX_BATCHES = 50;

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Runs one batch statement: the rows it handled (at most RETENTION_BATCH). */
async function count(tx: Database, statement: ReturnType<typeof sql>): Promise<number> {
  const result = (await tx.execute(statement)) as unknown as { rows: { n: number }[] };
  return Number(result.rows[0]?.n ?? 0);
}

/** Deletes up to RETENTION_BATCH rows of `table` matching `where`; returns how many. */
function deleteBatch(table: string, where: ReturnType<typeof sql>) {
  return sql`with gone as (
      delete from ${sql.identifier(table)} where ctid in (
        select ctid from ${sql.identifier(table)} where ${where} limit ${RETENTION_BATCH}
      ) returning 1
    ) select count(*)::int as n from gone`;
}

/** One batch of every table's pruning, in the caller's transaction: what each statement handled. */
export async function retentionBatch(tx: Database, now: Date): Promise<Record<string, number>> {
  const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const result: Record<string, number> = {};
  result.idempotency_keys = await count(
    tx,
    deleteBatch("idempotency_keys", sql`created_at < ${before(RETENTION.idempotencyKeyMs)}::timestamptz`),
  );
  result.login_transactions = await count(
    tx,
    deleteBatch(
      "login_transactions",
      sql`expires_at < ${before(RETENTION.loginTransactionAfterExpiryMs)}::timestamptz`,
    ),
  );
  result.sessions = await count(
    tx,
    deleteBatch(
      "sessions",
      sql`least(expires_at, absolute_expires_at, coalesce(revoked_at, 'infinity')) < ${before(RETENTION.endedSessionMs)}::timestamptz`,
    ),
  );
  // An erasure's tombstones (decision 0056): kept until the session would have ended at the latest, no longer.
  result.erased_sessions = await count(
    tx,
    deleteBatch("erased_sessions", sql`ends_at < ${now.toISOString()}::timestamptz`),
  );
  result.validation_rollups = await count(
    tx,
    deleteBatch(
      "validation_rollups",
      sql`day < ${utcDay(new Date(now.getTime() - RETENTION.validationRollupMs))}::date`,
    ),
  );
  result.usage_reports = await count(
    tx,
    deleteBatch("usage_reports", sql`created_at < ${before(RETENTION.usageReportMs)}::timestamptz`),
  );
  result.oidc_store = await count(
    tx,
    deleteBatch("oidc_store", sql`expires_at < ${before(RETENTION.devIssuerAfterExpiryMs)}::timestamptz`),
  );
  result.machine_events = await count(
    tx,
    deleteBatch("machine_events", sql`at < ${before(RETENTION.machineEventMs)}::timestamptz`),
  );
  result.license_key_aliases = await count(
    tx,
    deleteBatch("license_key_aliases", sql`valid_until < ${before(RETENTION.rotatedKeyAfterExpiryMs)}::timestamptz`),
  );
  result.outbox = await count(
    tx,
    deleteBatch(
      "outbox",
      sql`status in ('delivered', 'dead') and finished_at < ${before(RETENTION.finishedOutboxMs)}::timestamptz`,
    ),
  );
  result.webhook_deliveries = await count(
    tx,
    deleteBatch("webhook_deliveries", sql`created_at < ${before(RETENTION.webhookDeliveryLogMs)}::timestamptz`),
  );
  result.dev_mail = await count(
    tx,
    deleteBatch("dev_mail", sql`created_at < ${before(RETENTION.devMailMs)}::timestamptz`),
  );
  // Fold old daily usage into monthly rows (machine_id '' — no real machine id is empty): totals and the most
  // used features stay exact, the table stops growing by the day.
  result.usage_rollups_folded = await count(
    tx,
    sql`with old as (
        delete from usage_rollups where ctid in (
          select ctid from usage_rollups
          where day < ${utcDay(new Date(now.getTime() - RETENTION.usageDailyRollupMs))}::date and machine_id <> ''
          limit ${RETENTION_BATCH}
        ) returning license_id, date_trunc('month', day)::date as month, feature, executions
      ), folded as (
        insert into usage_rollups (license_id, day, machine_id, feature, executions)
        select license_id, month, '', feature, sum(executions) from old group by license_id, month, feature
        on conflict (license_id, day, machine_id, feature)
        do update set executions = usage_rollups.executions + excluded.executions
        returning 1
      ) select (select count(*) from old)::int as n`,
  );
  return result;
}

/** Whether a batch was full somewhere: the next batch has work. */
const anyFull = (result: Record<string, number> | undefined) =>
  Object.values(result ?? {}).some((n) => n >= RETENTION_BATCH);

/** Every table pruned until no batch is full (at most RETENTION_MAX_BATCHES), in the caller's transaction (tests). */
export async function applyRetention(tx: Database, now: Date): Promise<Record<string, number>> {
  const total: Record<string, number> = {};
  for (let batch = 0; batch < RETENTION_MAX_BATCHES; batch++) {
    const result = await retentionBatch(tx, now);
    for (const [key, value] of Object.entries(result)) total[key] = (total[key] ?? 0) + value;
    if (!anyFull(result)) break;
  }
  return total;
}

export const retentionJob: Job = {
  name: "retention",
  intervalMs: RETENTION_INTERVAL_MS,
  run: retentionBatch,
  batches: { max: RETENTION_MAX_BATCHES, more: anyFull },
};
