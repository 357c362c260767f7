/**
 * Seats that manage themselves: a machine silent longer than its tier's heartbeat interval plus the drift allowance
 * (contracts/seats.ts) is marked inactive, its slot freed and its executions stopped; an inactive machine not back
 * within the revival window is forgotten; execution leases silent past their revival window end. One runner across
 * instances (scheduler.ts), in bounded batches under the seat lock taken SKIP LOCKED (seats/); the licenses it changed
 * are announced on every instance once its transaction has committed.
 */
import { inactiveAfterSeconds } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { recordEvent } from "../modules/events/record";
import { sweepExpiredExecutions } from "../modules/licenses/seats/execution-leases";
import { cullingCandidates, cullLicenses } from "../modules/licenses/seats/machine-slots";
import { lockLicensesSkippingBusy, type Seats } from "../modules/licenses/seats/seat-lock";
import type { Job } from "./scheduler";

/** How often the job looks: a slot is freed at most this long after its machine passed the rule. */
export const CULLING_INTERVAL_MS = 60 * 1000;
/** Licenses culled per run (one transaction): a backlog is worked off over the next runs. */
export const CULLING_BATCH_LICENSES = 500;
/** Execution leases ended per run. */
export const SWEEP_BATCH_LEASES = 5_000;

export function cullingJob(seats: Seats): Job {
  let pending: string[] = [];
  return {
    name: "culling",
    intervalMs: CULLING_INTERVAL_MS,
    async run(tx, now) {
      const locked = await lockLicensesSkippingBusy(tx, cullingCandidates(now), CULLING_BATCH_LICENSES);
      const { culled, forgotten } = await cullLicenses(tx, locked, now);
      const tierOf = new Map(locked.map((one) => [one.license.id, one.license.tier]));
      for (const machine of culled) {
        const heartbeat = TIERS[tierOf.get(machine.licenseId) as keyof typeof TIERS].heartbeatIntervalSeconds;
        await recordEvent(tx, {
          type: "machine.culled",
          actor: { type: "system", id: "culling" },
          target: { type: "machine", id: machine.machineId },
          licenseId: machine.licenseId,
          before: { status: "active" },
          after: {
            status: "inactive",
            silent_since: new Date(now.getTime() - inactiveAfterSeconds(heartbeat) * 1000).toISOString(),
          },
        });
      }
      // Execution leases silent past their revival window end here, and count (decision 0048).
      const swept = await sweepExpiredExecutions(tx, now, SWEEP_BATCH_LEASES);
      pending = [...locked.flatMap((one) => [...one.announced]), ...swept];
      return { culled: culled.length, forgotten, executionsEnded: swept.length };
    },
    async afterCommit() {
      const keys = pending;
      pending = [];
      await seats.announce(keys);
    },
  };
}
