/**
 * Seats that manage themselves: a machine silent longer than its tier's heartbeat interval plus the drift allowance
 * (contracts/seats.ts) is marked inactive and its slot freed; an inactive machine not back within the revival window
 * is forgotten. One runner across instances (scheduler.ts); the licenses it changed are invalidated on every
 * instance once its transaction has committed.
 */
import { recordEvent } from "../modules/events/record";
import { sweepExpiredExecutions } from "../modules/licenses/execution-queries";
import { cullSilentMachines } from "../modules/licenses/queries";
import type { Job } from "./scheduler";

/** How often the job looks: a slot is freed at most this long after its machine passed the rule. */
export const CULLING_INTERVAL_MS = 60 * 1000;

export function cullingJob(changed: (licenseKey: string) => Promise<void>): Job {
  let pending: string[] = [];
  return {
    name: "culling",
    intervalMs: CULLING_INTERVAL_MS,
    async run(tx, now) {
      const { culled, forgotten, keys } = await cullSilentMachines(tx, now, (jobTx, machine) =>
        recordEvent(jobTx, {
          type: "machine.culled",
          actor: { type: "system", id: "culling" },
          target: { type: "machine", id: machine.machineId },
          licenseId: machine.licenseId,
          before: { status: "active" },
          after: { status: "inactive", silent_since: machine.silentSince.toISOString() },
        }),
      );
      // Execution leases silent past their revival window end here, and count (decision 0048).
      const swept = await sweepExpiredExecutions(tx, now);
      pending = [...new Set([...keys, ...swept])];
      return { culled, forgotten, executionsEnded: swept.length };
    },
    async afterCommit() {
      const keys = pending;
      pending = [];
      await Promise.all(keys.map((key) => changed(key)));
    },
  };
}
