/** An admin revokes a device: its slot is freed even while its license file works, recorded with a reason. */
import { ShieldOff } from "lucide-react";
import { Banner } from "../../components/banner";
import { Modal } from "../../components/modal";
import { type AdminMachine, adminErrorMessage } from "./api";
import { ReasonField, useReason } from "./license-action-dialog";
import { FormActions, formatDateTime } from "./ui";

export function RevokeMachineDialog({
  machine,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  /** The device to revoke; null when closed. */
  machine: AdminMachine | null;
  busy: boolean;
  error: unknown;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}) {
  return (
    <Modal open={machine !== null} onClose={onClose} title="Revoke device" closeDisabled={busy} className="max-w-lg">
      {machine && (
        <RevokeForm
          key={machine.machine_id}
          machine={machine}
          busy={busy}
          error={error}
          onSubmit={onSubmit}
          onClose={onClose}
        />
      )}
    </Modal>
  );
}

function RevokeForm({
  machine,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  machine: AdminMachine;
  busy: boolean;
  error: unknown;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}) {
  const reason = useReason();

  return (
    <form onSubmit={reason.submitTo(onSubmit)} noValidate className="mt-3 space-y-4 text-sm">
      <p className="text-fg-muted">
        <span className="font-mono text-fg">{machine.display_id}</span> loses its slot now and is barred until the owner
        allows it again.{" "}
        {machine.license_file_until
          ? `Its license file cannot be called back: it may keep working offline until ${formatDateTime(machine.license_file_until)}.`
          : "It holds no license file."}
      </p>
      <ReasonField {...reason.field} />
      {error ? <Banner tone="error">{adminErrorMessage(error)}</Banner> : null}
      <FormActions busy={busy} onCancel={onClose} Icon={ShieldOff} label="Revoke device" tone="danger" />
    </form>
  );
}
