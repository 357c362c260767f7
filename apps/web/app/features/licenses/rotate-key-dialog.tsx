import { MESSAGES } from "@flotilla/contracts/messages";
import { formatDuration, SEAT_RULES } from "@flotilla/contracts/seats";
import { KeyRound, Loader2 } from "lucide-react";
import { useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { CopyButton } from "../../components/copy-button";
import { Modal } from "../../components/modal";
import { formatClockTime, formatExactTime } from "../../lib/portal-format";
import { licenseActionErrorMessage, type RotatedKey, useRotateLicenseKey } from "./api";
import { LicenseKey } from "./license-key";

interface RotateKeyDialogProps {
  open: boolean;
  licenseKey: string;
  onClose: () => void;
  /** The key was rotated: the page reloads the dashboard (the card then shows the new key). */
  onRotated?: (rotated: RotatedKey) => void;
}

const GRACE = formatDuration(SEAT_RULES.keyRotationGraceSeconds);

/** Confirms a key rotation, then shows the new key once, with a copy button and when the old key stops. */
export function RotateKeyDialog({ open, licenseKey, onClose, onRotated }: RotateKeyDialogProps) {
  const rotation = useRotateLicenseKey();
  const [rotated, setRotated] = useState<RotatedKey | null>(null);
  const [error, setError] = useState<string | null>(null);

  function close() {
    onClose();
    setRotated(null);
    setError(null);
    rotation.reset();
  }

  async function rotate() {
    setError(null);
    try {
      const result = await rotation.mutateAsync(licenseKey);
      setRotated(result);
      onRotated?.(result);
    } catch (failure) {
      setError(licenseActionErrorMessage(failure, MESSAGES.licenseRotateFailed));
    }
  }

  return (
    <Modal
      open={open}
      onClose={close}
      title={rotated ? "Your new license key" : "Rotate license key?"}
      closeDisabled={rotation.isPending}
      className="max-w-lg"
    >
      {rotated ? (
        <div className="mt-4 space-y-4 text-sm">
          <p className="text-fg-muted">Copy it now and enter it on your devices.</p>
          <div className="flex items-center gap-1 rounded-lg border border-border bg-bg-subtle py-1 pl-3 pr-1">
            <KeyRound className="size-4 shrink-0 text-fg-muted" aria-hidden="true" />
            <LicenseKey value={rotated.license.license_key} />
            <CopyButton value={rotated.license.license_key} label="Copy new license key" />
          </div>
          <p>
            The old key stops working at{" "}
            <time
              dateTime={rotated.previousKeyValidUntil}
              title={formatExactTime(rotated.previousKeyValidUntil)}
              className="font-semibold"
            >
              {formatClockTime(rotated.previousKeyValidUntil)}
            </time>
            . Your devices keep their slots when you enter the new key.
          </p>
          <div className="flex justify-end">
            <button type="button" onClick={close} className={buttonClass("primary", "md")}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <div className="mt-4 space-y-4 text-sm">
          <p className="text-fg-muted">
            Rotate the key if it leaked or was shared by mistake. You get a new key now; the old key keeps working for{" "}
            {GRACE}, then stops. Your devices keep their slots when you enter the new key.
          </p>
          {error && <Banner tone="error">{error}</Banner>}
          <div className="flex flex-wrap justify-end gap-2">
            <button
              type="button"
              onClick={close}
              disabled={rotation.isPending}
              className={buttonClass("secondary", "md")}
            >
              Cancel
            </button>
            <button
              type="button"
              onClick={() => void rotate()}
              disabled={rotation.isPending}
              aria-busy={rotation.isPending}
              className={buttonClass("primary", "md")}
            >
              {rotation.isPending && <Loader2 className="size-4 animate-spin" aria-hidden="true" />}
              Rotate key
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}
