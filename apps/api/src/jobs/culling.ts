/**
 * Seats that manage themselves: a machine silent longer than its tier's heartbeat interval plus the drift allowance
 * (contracts/seats.ts) is marked inactive, its slot freed and its executions stopped; an inactive machine not back
 * within the revival window is forgotten; execution leases silent past their revival window end. One runner across
 * instances (scheduler.ts), in bounded batches, each its own transaction, under the seat lock taken SKIP LOCKED
 * (seats/); the licenses a batch changed are announced on every instance once it has committed.
 *
 * The audit log gets one record per batch that changed something (`machines.culled`: how many), not one per machine
 * (decision 0058): the job's work grows with the fleet, the log must not. Each machine's cull stays in its license's
 * machine events (30 days) and, for endpoints subscribed to `machine.culled`, in a webhook of its own.
 */
import { inactiveAfterSeconds } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { recordEvent, sendWebhooksOnly } from "../modules/events/record";
import { sweepExpiredExecutions } from "../modules/licenses/seats/execution-leases";
import { cullingCandidates, cullLicenses } from "../modules/licenses/seats/machine-slots";
import { lockLicensesSkippingBusy, type Seats } from "../modules/licenses/seats/seat-lock";
import type { Job } from "./scheduler";

/** How often the job looks: a slot is freed at most this long after its machine passed the rule. */
export const CULLING_INTERVAL_MS = 60 * 1000;
/** Licenses culled per batch (one transaction, well under a second on the large seed: bench:scale). */
export const CULLING_BATCH_LICENSES = 500;
/** Execution leases ended per batch. */
export const SWEEP_BATCH_LEASES = 1_000;
/** Batches per run: a larger backlog is worked off over the next runs. */
export const CULLING_MAX_BATCHES = 20;

export interface CullingOptions {
  batchLicenses?: number;
  batchLeases?: number;
  maxBatches?: number;
}

export function cullingJob(seats: Seats, options: CullingOptions = {}): Job {
  const batchLicenses = options.batchLicenses ?? CULLING_BATCH_LICENSES;
  const batchLeases = options.batchLeases ?? SWEEP_BATCH_LEASES;
  let pending: string[] = [];
  return {
    name: "culling",
    intervalMs: CULLING_INTERVAL_MS,
    batches: {
      max: options.maxBatches ?? CULLING_MAX_BATCHES,
      more: (result) => (result?.licenses ?? 0) >= batchLicenses || (result?.executionsEnded ?? 0) >= batchLeases,
    },
    async run(tx, now) {
      const locked = await lockLicensesSkippingBusy(tx, cullingCandidates(now), batchLicenses);
      const { culled, forgotten } = await cullLicenses(tx, locked, now);
      // Execution leases silent past their revival window end here, and count (decision 0048).
      const swept = await sweepExpiredExecutions(tx, now, batchLeases);
      if (culled.length > 0 || forgotten > 0 || swept.length > 0) {
        await recordEvent(tx, {
          type: "machines.culled",
          actor: { type: "system", id: "culling" },
          target: { type: "job", id: "culling" },
          after: {
            culled: culled.length,
            forgotten,
            executions_ended: swept.length,
            licenses: new Set(culled.map((machine) => machine.licenseId)).size,
          },
        });
      }
      const tierOf = new Map(locked.map((one) => [one.license.id, one.license.tier]));
      await sendWebhooksOnly(
        tx,
        "machine.culled",
        culled.map((machine) => {
          const heartbeat = TIERS[tierOf.get(machine.licenseId) as keyof typeof TIERS].heartbeatIntervalSeconds;
          return {
            target: { type: "machine", id: machine.machineId },
            before: { status: "active" },
            after: {
              status: "inactive",
              silent_since: new Date(now.getTime() - inactiveAfterSeconds(heartbeat) * 1000).toISOString(),
            },
          };
        }),
        now,
      );
      pending = [...locked.flatMap((one) => [...one.announced, ...one.executionsAnnounced]), ...swept];
      return { licenses: locked.length, culled: culled.length, forgotten, executionsEnded: swept.length };
    },
    async afterCommit() {
      const keys = pending;
      pending = [];
      await seats.announce(keys);
    },
  };
}
