/**
 * An admin ends a running execution, with a reason: its app hears it within about a second (its next heartbeat at the
 * latest) and stops; its slot is held until then (decision 0052).
 */
import { EXECUTION_RULES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { CircleStop } from "lucide-react";
import { Banner } from "../../components/banner";
import { Modal } from "../../components/modal";
import { useRestoreFocus } from "../../components/use-restore-focus";
import { type AdminExecution, adminErrorMessage } from "./api";
import { ReasonField, useReason } from "./license-action-dialog";
import { executionDevice } from "./license-executions";
import { FormActions, formatDateTime } from "./ui";

export function EndExecutionDialog({
  execution,
  opener,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  /** The execution to end; null when closed. */
  execution: AdminExecution | null;
  /** The "End" button that opened it: focus goes back there on Cancel (some browsers do not focus a clicked button). */
  opener: HTMLElement | null;
  busy: boolean;
  error: unknown;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}) {
  useRestoreFocus(execution !== null, opener);
  return (
    <Modal open={execution !== null} onClose={onClose} title="End execution" closeDisabled={busy} className="max-w-lg">
      {execution && (
        <EndForm
          key={execution.id}
          execution={execution}
          busy={busy}
          error={error}
          onSubmit={onSubmit}
          onClose={onClose}
        />
      )}
    </Modal>
  );
}

function EndForm({
  execution,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  execution: AdminExecution;
  busy: boolean;
  error: unknown;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}) {
  const reason = useReason();

  return (
    <form onSubmit={reason.submitTo(onSubmit)} noValidate className="mt-3 space-y-4 text-sm">
      <p className="text-fg-muted">
        The execution
        {execution.feature ? (
          <>
            {" "}
            of <code className="text-fg">{execution.feature}</code>
          </>
        ) : null}{" "}
        on <span className="font-medium text-fg">{executionDevice(execution)}</span>, running since{" "}
        {formatDateTime(execution.started_at)}, is told to stop. Its app hears it within about a second (at its next
        heartbeat, every {EXECUTION_RULES.heartbeatIntervalSeconds} s, if it cannot hold a connection) and stops; its
        slot stays taken until then, {executionExpiresAfterSeconds()} s after its last heartbeat at the latest. It
        counts as one execution.
      </p>
      <ReasonField {...reason.field} />
      {error ? <Banner tone="error">{adminErrorMessage(error)}</Banner> : null}
      <FormActions busy={busy} onCancel={onClose} Icon={CircleStop} label="End execution" tone="danger" />
    </form>
  );
}
