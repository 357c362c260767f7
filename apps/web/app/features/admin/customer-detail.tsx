/**
 * One customer: their licenses with the admin actions, devices and executions per license, live sessions, "Sign out
 * everywhere", and a way to the privacy requests (export, erase) for their address.
 */
import type { LicenseAction } from "@flotilla/contracts/admin";
import { ArrowLeft, FileLock2, LogOut, ShieldCheck } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";
import {
  type AdminExecution,
  type AdminLicense,
  type AdminMachine,
  adminErrorMessage,
  useCustomerDetail,
  useEndExecution,
  useLicenseAction,
  useRevokeMachine,
  useSignOutEverywhere,
} from "./api";
import { EndExecutionDialog } from "./end-execution-dialog";
import { ACTION_TEXT, type ActionKind, LicenseActionDialog } from "./license-action-dialog";
import { executionDevice, executionsHeadingId, LicenseExecutions } from "./license-executions";
import { RevokeMachineDialog } from "./revoke-machine-dialog";
import { ConfirmDialog, ErrorNotice, formatDateTime, Loading, TableFrame, tableClass, tdClass, thClass } from "./ui";

const STATUS_STYLE: Record<string, string> = {
  active: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950/60 dark:text-emerald-300",
  suspended: "bg-amber-100 text-amber-900 dark:bg-amber-950/60 dark:text-amber-300",
  expired: "bg-red-100 text-red-800 dark:bg-red-950/60 dark:text-red-300",
};

function StatusBadge({ status }: { status: string }) {
  return (
    <span
      className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${STATUS_STYLE[status] ?? "bg-bg-subtle text-fg"}`}
    >
      {status.charAt(0).toUpperCase() + status.slice(1)}
    </span>
  );
}

const PAST_TENSE: Record<ActionKind, string> = {
  suspend: "License suspended.",
  reactivate: "License reactivated.",
  expire: "License expired.",
  extend: "End date changed.",
  change: "License changed.",
};

export function CustomerDetailView({ customerId }: { customerId: string }) {
  const detail = useCustomerDetail(customerId);
  const action = useLicenseAction(customerId);
  const signOut = useSignOutEverywhere(customerId);
  const revocation = useRevokeMachine(customerId);
  const [revoking, setRevoking] = useState<{ licenseKey: string; machine: AdminMachine } | null>(null);
  const ending = useEndExecution(customerId);
  const [endTarget, setEndTarget] = useState<{
    license: AdminLicense;
    execution: AdminExecution;
    opener: HTMLElement;
  } | null>(null);
  // Once an execution has ended its row has no "End" button to return to: focus its license's Executions heading.
  const focusAfterEnd = useRef<string | null>(null);
  useEffect(() => {
    if (endTarget || !focusAfterEnd.current) return;
    const heading = document.getElementById(focusAfterEnd.current);
    focusAfterEnd.current = null;
    if (heading && (document.activeElement === null || document.activeElement === document.body)) heading.focus();
  }, [endTarget]);
  // The license stays set after the dialog closes, so the <dialog> closes (and hands focus back) instead of vanishing.
  const [target, setTarget] = useState<AdminLicense | null>(null);
  const [kind, setKind] = useState<ActionKind | null>(null);
  const [confirmSignOut, setConfirmSignOut] = useState(false);
  const [message, setMessage] = useState("");

  function run(change: LicenseAction) {
    if (!target) return;
    action.mutate(
      { licenseKey: target.license_key, action: change },
      {
        onSuccess: (answer) => {
          setMessage(
            `${PAST_TENSE[change.action]} The desktop app sees it on every instance within ${answer.visible_within_seconds} s.`,
          );
          setKind(null);
        },
      },
    );
  }

  function revoke(reason: string) {
    if (!revoking) return;
    revocation.mutate(
      { licenseKey: revoking.licenseKey, machineId: revoking.machine.machine_id, reason },
      {
        onSuccess: (answer) => {
          setMessage(
            `Device ${revoking.machine.display_id} revoked${
              answer.license_file_valid_until
                ? `; its license file may keep working offline until ${formatDateTime(answer.license_file_valid_until)}`
                : ""
            }. Every instance refuses it within ${answer.visible_within_seconds} s.`,
          );
          setRevoking(null);
        },
      },
    );
  }

  function end(reason: string) {
    if (!endTarget) return;
    const { license, execution } = endTarget;
    ending.mutate(
      { licenseKey: license.license_key, executionId: execution.id, reason },
      {
        onSuccess: ({ data }) => {
          const device = executionDevice(execution);
          setMessage(
            data.status === "stopping"
              ? `Stopping on ${device}…: its app has been told; its slot frees once it has stopped.`
              : `The execution on ${device} had already ended (${data.end_reason.replaceAll("_", " ")}).`,
          );
          focusAfterEnd.current = executionsHeadingId(license.id);
          setEndTarget(null);
        },
      },
    );
  }

  function openAction(license: AdminLicense, kind: ActionKind) {
    action.reset();
    setTarget(license);
    setKind(kind);
  }

  const back = (
    <Link to="?tab=customers" className={buttonClass("ghost", "sm", "-ml-3")}>
      <ArrowLeft className="size-4" aria-hidden="true" />
      All customers
    </Link>
  );

  if (detail.isPending)
    return (
      <>
        {back}
        <Loading label="Loading customer…" />
      </>
    );
  if (detail.isError) {
    return (
      <>
        {back}
        <ErrorNotice message={adminErrorMessage(detail.error)} onRetry={() => void detail.refetch()} />
      </>
    );
  }
  const { customer, licenses, sessions, is_admin } = detail.data;
  return (
    <section aria-labelledby="customer-title">
      {back}
      <div className="mt-3 flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <h2 id="customer-title" className="text-xl font-semibold tracking-tight">
            {customer.name || customer.email}
          </h2>
          <p className="mt-1 wrap-anywhere text-sm text-fg-muted">{customer.email}</p>
          <p className="mt-1 text-xs text-fg-muted">
            Joined {formatDateTime(customer.created_at)} · last sign-in{" "}
            {formatDateTime(customer.last_sign_in_at, "never")}
            {is_admin && (
              <span className="ml-2 inline-flex items-center gap-1 font-medium text-sky-700 dark:text-sky-300">
                <ShieldCheck className="size-3.5" aria-hidden="true" />
                Admin
              </span>
            )}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <button
            type="button"
            className={buttonClass("secondary", "sm")}
            onClick={() => {
              signOut.reset();
              setConfirmSignOut(true);
            }}
          >
            <LogOut className="size-4" aria-hidden="true" />
            Sign out everywhere
          </button>
          <Link to={`?tab=privacy&email=${encodeURIComponent(customer.email)}`} className={buttonClass("ghost", "sm")}>
            <FileLock2 className="size-4" aria-hidden="true" />
            Privacy request…
          </Link>
        </div>
      </div>

      <p role="status" className="mt-4 text-sm font-medium text-emerald-700 empty:hidden dark:text-emerald-400">
        {message}
      </p>

      <h3 className="mt-8 text-base font-semibold">Licenses</h3>
      {licenses.length === 0 ? (
        <p className="mt-2 text-sm text-fg-muted">No license yet.</p>
      ) : (
        <div className="mt-3 space-y-4">
          {licenses.map((license) => (
            <section
              key={license.id}
              aria-label={`License ${license.license_key}`}
              className="rounded-xl border border-border bg-bg-elevated p-4"
            >
              <div className="flex flex-wrap items-center gap-3">
                <code className="wrap-anywhere font-mono text-sm">{license.license_key}</code>
                <StatusBadge status={license.status} />
              </div>
              <dl className="mt-3 grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4">
                <div>
                  <dt className="text-xs text-fg-muted">Tier</dt>
                  <dd className="font-medium">{license.tier}</dd>
                </div>
                <div>
                  <dt className="text-xs text-fg-muted">Devices</dt>
                  <dd className="font-medium">
                    {license.machines.length} of {license.max_machines}
                  </dd>
                </div>
                <div>
                  <dt className="text-xs text-fg-muted">Ends</dt>
                  <dd className="font-medium">{formatDateTime(license.expires_at, "Never")}</dd>
                </div>
                <div>
                  <dt className="text-xs text-fg-muted">Last seen</dt>
                  <dd className="font-medium">{formatDateTime(license.last_seen, "Never")}</dd>
                </div>
                <div>
                  <dt className="text-xs text-fg-muted">License files</dt>
                  <dd className="font-medium">{license.offline_files_allowed ? "Allowed" : "Off"}</dd>
                </div>
              </dl>
              <div className="mt-4 flex flex-wrap gap-2">
                {license.status !== "suspended" && (
                  <ActionButton kind="suspend" onClick={() => openAction(license, "suspend")} />
                )}
                {license.status !== "active" && (
                  <ActionButton kind="reactivate" onClick={() => openAction(license, "reactivate")} />
                )}
                {license.status !== "expired" && (
                  <ActionButton kind="expire" onClick={() => openAction(license, "expire")} />
                )}
                <ActionButton kind="extend" onClick={() => openAction(license, "extend")} />
                <ActionButton kind="change" onClick={() => openAction(license, "change")} />
              </div>
              <Devices
                machines={license.machines}
                licenseKey={license.license_key}
                onRevoke={(machine) => {
                  revocation.reset();
                  setRevoking({ licenseKey: license.license_key, machine });
                }}
              />
              <LicenseExecutions
                licenseId={license.id}
                licenseKey={license.license_key}
                executions={license.executions}
                onEnd={(execution, event) => {
                  ending.reset();
                  setEndTarget({ license, execution, opener: event.currentTarget });
                }}
              />
            </section>
          ))}
        </div>
      )}

      <h3 className="mt-8 text-base font-semibold">Live sessions</h3>
      {sessions.length === 0 ? (
        <p className="mt-2 text-sm text-fg-muted">Not signed in anywhere.</p>
      ) : (
        <TableFrame label="Live sessions">
          <table className={tableClass} aria-label="Live sessions">
            <thead>
              <tr>
                <th className={thClass}>Started</th>
                <th className={thClass}>Last used</th>
                <th className={thClass}>Ends</th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((session) => (
                <tr key={session.id}>
                  <td className={tdClass}>{formatDateTime(session.created_at)}</td>
                  <td className={tdClass}>{formatDateTime(session.last_used_at)}</td>
                  <td className={tdClass}>{formatDateTime(session.expires_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}

      {target && (
        <LicenseActionDialog
          license={target}
          kind={kind}
          busy={action.isPending}
          error={action.isError ? action.error : null}
          onSubmit={run}
          onClose={() => setKind(null)}
        />
      )}
      <RevokeMachineDialog
        machine={revoking?.machine ?? null}
        busy={revocation.isPending}
        error={revocation.isError ? revocation.error : null}
        onSubmit={revoke}
        onClose={() => setRevoking(null)}
      />
      <EndExecutionDialog
        execution={endTarget?.execution ?? null}
        opener={endTarget?.opener ?? null}
        busy={ending.isPending}
        error={ending.isError ? ending.error : null}
        onSubmit={end}
        onClose={() => setEndTarget(null)}
      />
      <ConfirmDialog
        open={confirmSignOut}
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        tone="danger"
        busy={signOut.isPending}
        error={signOut.isError ? adminErrorMessage(signOut.error) : null}
        onClose={() => setConfirmSignOut(false)}
        onConfirm={() =>
          signOut.mutate(undefined, {
            onSuccess: ({ revoked }) => {
              setMessage(`Ended ${revoked} session${revoked === 1 ? "" : "s"}.`);
              setConfirmSignOut(false);
            },
          })
        }
      >
        <p>
          Every browser where {customer.email} is signed in is signed out. Their licenses and devices are not touched.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function ActionButton({ kind, onClick }: { kind: ActionKind; onClick: () => void }) {
  return (
    <button type="button" className={buttonClass("secondary", "sm")} onClick={onClick}>
      {ACTION_TEXT[kind].button}
    </button>
  );
}

function Devices({
  machines,
  licenseKey,
  onRevoke,
}: {
  machines: AdminMachine[];
  licenseKey: string;
  onRevoke: (machine: AdminMachine) => void;
}) {
  if (machines.length === 0) return <p className="mt-4 text-sm text-fg-muted">No devices activated.</p>;
  return (
    <TableFrame label={`Devices of ${licenseKey}`}>
      <table className={tableClass} aria-label="Devices">
        <thead>
          <tr>
            <th className={thClass}>Device</th>
            <th className={thClass}>Platform</th>
            <th className={thClass}>Activated</th>
            <th className={thClass}>Last seen</th>
            <th className={thClass}>License file</th>
            <th className={thClass}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {machines.map((machine) => (
            <tr key={machine.machine_id}>
              <td className={tdClass}>
                <span className="font-medium">{machine.machine_name ?? machine.machine_id}</span>
                <span className="block font-mono text-xs text-fg-muted">
                  {machine.display_id}
                  {machine.is_primary ? " · primary" : ""}
                </span>
              </td>
              <td className={tdClass}>{machine.platform ?? "—"}</td>
              <td className={tdClass}>{formatDateTime(machine.bound_at)}</td>
              <td className={tdClass}>
                {formatDateTime(machine.last_seen, "Never")}
                {machine.status === "inactive" && <span className="block text-xs text-fg-muted">inactive</span>}
              </td>
              <td className={tdClass}>
                {machine.license_file_until ? `until ${formatDateTime(machine.license_file_until)}` : "—"}
              </td>
              <td className={tdClass}>
                <button
                  type="button"
                  className={buttonClass("ghost", "sm", "text-red-700 dark:text-red-400")}
                  onClick={() => onRevoke(machine)}
                  aria-label={`Revoke device ${machine.display_id}`}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}
