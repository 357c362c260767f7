import { Monitor, Server, Smartphone } from "lucide-react";
import { type DeviceKind, guessDeviceKind } from "./device-helpers";

const ICONS = { mobile: Smartphone, server: Server, desktop: Monitor } as const;
const LABELS: Record<DeviceKind, string> = { mobile: "Mobile device", server: "Server", desktop: "Desktop computer" };

/** The kind of device, guessed from its machine id text, as an icon with a name for assistive tech. */
export function DeviceKindIcon({ machineId }: { machineId: string }) {
  const kind = guessDeviceKind(machineId);
  const Icon = ICONS[kind];
  return (
    <span
      role="img"
      aria-label={LABELS[kind]}
      title={LABELS[kind]}
      data-kind={kind}
      className="grid size-10 shrink-0 place-items-center rounded-lg bg-sky-500/10 text-sky-700 dark:text-sky-300"
    >
      <Icon className="size-5" aria-hidden="true" />
    </span>
  );
}
