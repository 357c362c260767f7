import { BRAND } from "@flotilla/contracts/brand";
import type { Machine, RemovedMachine } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { seatRuleText } from "@flotilla/contracts/seats";
import { SUCCESS_MESSAGE_MS } from "@flotilla/contracts/timings";
import { useQueryClient } from "@tanstack/react-query";
import { BarChart3, HeartPulse, Info, Loader2, MonitorSmartphone, RotateCw } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { formatExactTime } from "../../lib/portal-format";
import {
  deviceErrorMessage,
  machineKeys,
  useMachineAnalytics,
  useMachines,
  useRemoveMachine,
  useRestoreMachine,
  useRevokeMachine,
} from "./api";
import { DeviceAnalytics } from "./device-analytics";
import { remainingDevicesHint } from "./device-helpers";
import { DeviceList } from "./device-list";
import { RemoveDeviceDialog } from "./remove-device-dialog";
import { RemovedDevices } from "./removed-devices";
import { RevokeDeviceDialog } from "./revoke-device-dialog";

interface DevicePanelProps {
  licenseKey: string;
  /** Called after a device was removed, so the page around can refresh its figures. */
  onChanged?: () => void;
  /**
   * Increase it to ask the owner to free a slot (the license card's "Free a slot"): the panel scrolls into view,
   * says what to do and puts focus on the first device that can be removed.
   */
  removalRequest?: number;
}

/** Spec section 2, "Device Management panel": the devices authorized under one license. */
export function DevicePanel({ licenseKey, onChanged, removalRequest = 0 }: DevicePanelProps) {
  const headingId = useId();
  const sectionRef = useRef<HTMLElement>(null);
  const [choosing, setChoosing] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const analyticsId = useId();
  const queryClient = useQueryClient();
  const machines = useMachines(licenseKey);
  const [showAnalytics, setShowAnalytics] = useState(false);
  const analytics = useMachineAnalytics(licenseKey, showAnalytics);
  const removal = useRemoveMachine(licenseKey);
  const restoration = useRestoreMachine(licenseKey);
  const revocation = useRevokeMachine(licenseKey);
  const [confirmingRemoval, setConfirmingRemoval] = useState<Machine | null>(null);
  const [revoking, setRevoking] = useState<Machine | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const [removingIds, setRemovingIds] = useState<ReadonlySet<string>>(() => new Set());
  const [restoringIds, setRestoringIds] = useState<ReadonlySet<string>>(() => new Set());
  const [removeError, setRemoveError] = useState<string | null>(null);
  const [successMessage, setSuccessMessage] = useState<string | null>(null);

  useEffect(() => {
    if (!successMessage) return;
    const timer = setTimeout(() => setSuccessMessage(null), SUCCESS_MESSAGE_MS);
    return () => clearTimeout(timer);
  }, [successMessage]);

  useEffect(() => {
    if (removalRequest > 0) setChoosing(true);
  }, [removalRequest]);

  const loaded = machines.isSuccess;
  // Runs again when a new request arrives or the list loads.
  useEffect(() => {
    if (removalRequest <= 0 || !loaded) return;
    const section = sectionRef.current;
    section?.scrollIntoView?.({ block: "start", behavior: "smooth" });
    const first = section?.querySelector<HTMLButtonElement>("button[data-remove]:not(:disabled)");
    (first ?? headingRef.current)?.focus({ preventScroll: true });
  }, [removalRequest, loaded]);

  async function removeDevice(machine: Machine) {
    const id = machine.machine_id;
    const trigger = document.activeElement;
    setRemovingIds((current) => new Set(current).add(id));
    setRemoveError(null);
    setSuccessMessage(null);
    try {
      const message = await removal.mutateAsync(id);
      setSuccessMessage(message || `Device ${machine.display_id} removed`);
      setChoosing(false);
      await queryClient.invalidateQueries({ queryKey: machineKeys.all(licenseKey) });
      onChanged?.();
    } catch (error) {
      setRemoveError(deviceErrorMessage(error, MESSAGES.machineRemoveFailed));
    } finally {
      setRemovingIds((current) => {
        const next = new Set(current);
        next.delete(id);
        return next;
      });
      // The remove button was disabled while it ran and, on success, goes away with its row: a keyboard user
      // would be dropped at the top of the page. Bring focus back to this panel's heading instead.
      const focused = document.activeElement;
      if (focused === trigger || !focused || focused === document.body) headingRef.current?.focus();
    }
  }

  /**
   * Both ask first and say what happens: a device is removed after a confirmation, and one holding a license file is
   * revoked after one that says what revoking cannot do.
   */
  function removeOrRevoke(machine: Machine) {
    if (!machine.license_file_until) return setConfirmingRemoval(machine);
    setRevokeError(null);
    setRevoking(machine);
  }

  function confirmRemoval(machine: Machine) {
    setConfirmingRemoval(null);
    void removeDevice(machine);
  }

  async function revokeDevice(machine: Machine) {
    setRevokeError(null);
    setRemoveError(null);
    setSuccessMessage(null);
    try {
      const { fileValidUntil } = await revocation.mutateAsync(machine.machine_id);
      setRevoking(null);
      setSuccessMessage(
        `Device ${machine.display_id} revoked. Its slot is free now and it cannot validate again until you allow it back${
          fileValidUntil ? `; its license file may keep working offline until ${formatExactTime(fileValidUntil)}` : ""
        }.`,
      );
      setChoosing(false);
      await queryClient.invalidateQueries({ queryKey: machineKeys.all(licenseKey) });
      onChanged?.();
    } catch (error) {
      setRevokeError(deviceErrorMessage(error, MESSAGES.machineRevokeFailed));
    }
  }

  async function restoreDevice(machine: RemovedMachine) {
    const id = machine.machine_id;
    setRestoringIds((current) => new Set(current).add(id));
    setRemoveError(null);
    setSuccessMessage(null);
    try {
      setSuccessMessage((await restoration.mutateAsync(id)) || `Device ${machine.display_id} allowed again`);
      await queryClient.invalidateQueries({ queryKey: machineKeys.all(licenseKey) });
    } catch (error) {
      setRemoveError(deviceErrorMessage(error, MESSAGES.machineRestoreFailed));
    } finally {
      setRestoringIds((current) => {
        const next = new Set(current);
        next.delete(id);
        return next;
      });
      headingRef.current?.focus();
    }
  }

  const list = machines.data;
  const hint = list && !machines.isError ? remainingDevicesHint(list.current_count, list.max_machines) : null;

  return (
    <section
      ref={sectionRef}
      aria-labelledby={headingId}
      className="scroll-mt-24 rounded-xl border border-border bg-bg-subtle p-4 sm:p-5"
    >
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="flex min-w-0 items-start gap-3">
          <MonitorSmartphone className="mt-0.5 size-5 shrink-0 text-sky-600 dark:text-sky-400" aria-hidden="true" />
          <div className="min-w-0">
            <h4 id={headingId} ref={headingRef} tabIndex={-1} className="font-semibold">
              Device Management
            </h4>
            <p className="text-sm text-fg-muted">Manage devices authorized to use your license</p>
          </div>
        </div>
        <div className="flex items-center gap-4">
          {list && (
            <dl className="flex flex-col-reverse text-right">
              <dt className="text-xs text-fg-muted">Devices Used</dt>
              <dd
                className="text-lg font-semibold tabular-nums"
                title={`${list.current_count} of ${list.max_machines} slots held by active devices`}
              >
                {list.current_count}/{list.max_machines}
                <span className="sr-only"> active slots</span>
              </dd>
            </dl>
          )}
          <button
            type="button"
            onClick={() => setShowAnalytics((shown) => !shown)}
            aria-expanded={showAnalytics}
            aria-controls={analyticsId}
            className={buttonClass("secondary", "sm")}
          >
            <BarChart3 className="size-4" aria-hidden="true" />
            {showAnalytics ? "Hide Analytics" : "Show Analytics"}
          </button>
        </div>
      </div>

      <div className="mt-4 space-y-3">
        <div aria-live="polite">{successMessage && <Banner tone="success">{successMessage}</Banner>}</div>
        {removeError && <Banner tone="error">{removeError}</Banner>}
        {choosing && list && !machines.isError && (
          <Banner tone="warning" title="Free a slot">
            Remove a device you no longer use with its remove button below. Its slot goes to the next device that starts{" "}
            {BRAND.name}.
          </Banner>
        )}

        <div id={analyticsId} hidden={!showAnalytics}>
          {showAnalytics && <DeviceAnalytics analytics={analytics.data} loading={analytics.isPending} />}
        </div>

        {machines.isPending ? (
          <p role="status" className="flex items-center justify-center gap-2 py-6 text-sm text-fg-muted">
            <Loader2 className="size-4 animate-spin" aria-hidden="true" />
            Loading machine data...
          </p>
        ) : machines.isError ? (
          <div
            role="alert"
            className="rounded-lg border border-red-300 bg-red-50 px-4 py-5 text-center text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200"
          >
            <p className="font-medium">{MESSAGES.machinePanelLoadFailed}</p>
            <p className="mt-1 text-sm">{deviceErrorMessage(machines.error, MESSAGES.machineLoadFailed)}</p>
            <button
              type="button"
              onClick={() => void machines.refetch()}
              disabled={machines.isFetching}
              className={buttonClass("secondary", "sm", "mt-3")}
            >
              <RotateCw className={`size-4 ${machines.isFetching ? "animate-spin" : ""}`} aria-hidden="true" />
              Try again
            </button>
          </div>
        ) : (
          <DeviceList
            list={machines.data}
            analytics={showAnalytics ? analytics.data : undefined}
            removingIds={removingIds}
            onRemove={removeOrRevoke}
          />
        )}

        <RemoveDeviceDialog
          machine={confirmingRemoval}
          onCancel={() => setConfirmingRemoval(null)}
          onConfirm={confirmRemoval}
        />

        <RevokeDeviceDialog
          machine={revoking}
          pending={revocation.isPending}
          error={revokeError}
          onCancel={() => setRevoking(null)}
          onConfirm={(machine) => void revokeDevice(machine)}
        />

        {list && !machines.isError && (
          <RemovedDevices removed={list.removed_machines ?? []} restoringIds={restoringIds} onRestore={restoreDevice} />
        )}

        {list?.seat_rules && !machines.isError && (
          <p className="flex items-start gap-2 text-sm text-fg-muted" data-testid="seat-rule">
            <HeartPulse className="mt-0.5 size-4 shrink-0 text-rose-600 dark:text-rose-400" aria-hidden="true" />
            <span>{seatRuleText(list.seat_rules)}</span>
          </p>
        )}

        {hint && (
          <p className="flex items-start gap-2 text-sm text-fg-muted">
            <Info className="mt-0.5 size-4 shrink-0 text-sky-600 dark:text-sky-400" aria-hidden="true" />
            <span>
              {hint}. Running {BRAND.name} on a new device registers it automatically.
            </span>
          </p>
        )}
      </div>
    </section>
  );
}
