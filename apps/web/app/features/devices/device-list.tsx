import type { Machine, MachineAnalytics, MachineList } from "@flotilla/contracts/licensing";
import { MonitorSmartphone } from "lucide-react";
import { DeviceRow } from "./device-row";
import type { DeviceUsageFigures } from "./device-usage";

interface DeviceListProps {
  list: MachineList;
  /** Analytics to show beside each device, when the analytics panel is open and loaded. */
  analytics?: MachineAnalytics;
  removingIds: ReadonlySet<string>;
  onRemove: (machine: Machine) => void;
}

/** The license's devices, or the empty state when none has been registered. */
export function DeviceList({ list, analytics, removingIds, onRemove }: DeviceListProps) {
  if (list.machines.length === 0) {
    return (
      <div className="rounded-lg border border-dashed border-border px-4 py-8 text-center">
        <MonitorSmartphone className="mx-auto size-8 text-fg-muted" aria-hidden="true" />
        <p className="mt-3 font-medium">No devices registered yet</p>
        <p className="mt-1 text-sm text-fg-muted">Devices will appear here when you activate your license</p>
      </div>
    );
  }
  const usage = usageByDisplayId(analytics);
  return (
    <ul className="space-y-2" aria-label="Authorized devices">
      {list.machines.map((machine) => (
        <DeviceRow
          key={machine.machine_id}
          machine={machine}
          boundCount={list.machines.length}
          removing={removingIds.has(machine.machine_id)}
          onRemove={onRemove}
          usage={usage?.(machine.display_id)}
        />
      ))}
    </ul>
  );
}

/** Analytics name devices by display id; a device without figures had no validations in the window. */
function usageByDisplayId(analytics: MachineAnalytics | undefined) {
  if (!analytics) return undefined;
  const stats = new Map(analytics.machine_stats.map((stat) => [stat.machine_id, stat]));
  const busiest = Math.max(0, ...analytics.machine_stats.map((stat) => stat.total_attempts));
  return (displayId: string): DeviceUsageFigures => {
    const stat = stats.get(displayId);
    return {
      total: stat?.total_attempts ?? 0,
      successful: stat?.successful_attempts ?? 0,
      failed: stat?.failed_attempts ?? 0,
      executions: stat?.executions,
      busiest,
    };
  };
}
