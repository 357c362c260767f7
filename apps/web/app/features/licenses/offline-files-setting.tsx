import { MESSAGES } from "@flotilla/contracts/messages";
import { formatDuration, SEAT_RULES } from "@flotilla/contracts/seats";
import { CLIENT_CONFIGURATION } from "@flotilla/contracts/tiers";
import { FileKey, Loader2 } from "lucide-react";
import { useId, useState } from "react";
import { Banner } from "../../components/banner";
import { licenseActionErrorMessage, useSetOfflineFiles } from "./api";

interface OfflineFilesSettingProps {
  licenseKey: string;
  allowed: boolean;
  /** The setting changed: the page reloads the dashboard. */
  onChanged?: () => void;
}

const MAX_FILE = formatDuration(SEAT_RULES.licenseFileMaxTtlSeconds);
const TOKEN_GRACE = formatDuration(CLIENT_CONFIGURATION.offlineGraceSeconds);

/**
 * The owner's consent to license files (decision 0036): off by default, so a leaked key alone cannot check out a
 * file that holds a slot for months. A switch with what it means next to it.
 */
export function OfflineFilesSetting({ licenseKey, allowed, onChanged }: OfflineFilesSettingProps) {
  const labelId = useId();
  const change = useSetOfflineFiles(licenseKey);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function toggle() {
    setError(null);
    setMessage(null);
    try {
      setMessage((await change.mutateAsync(!allowed)) ?? null);
      onChanged?.();
    } catch (failure) {
      setError(licenseActionErrorMessage(failure, MESSAGES.offlineFilesFailed));
    }
  }

  return (
    <div className="mt-5 rounded-lg border border-border p-3" data-testid="offline-files">
      <div className="flex items-start justify-between gap-3">
        <div className="flex min-w-0 flex-1 items-start gap-3">
          <FileKey className="mt-0.5 size-4 shrink-0 text-fg-muted" aria-hidden="true" />
          <div className="min-w-0 text-sm">
            <p id={labelId} className="font-medium">
              License files for offline devices
            </p>
            <p className="mt-0.5 text-fg-muted">
              {allowed
                ? `On: an activated device can check out a file that runs offline for up to ${MAX_FILE} and holds its slot until it expires.`
                : `Off: devices run online, and offline on their signed token for ${TOKEN_GRACE}. Turn on for air-gapped or long-offline devices.`}
            </p>
          </div>
        </div>
        <button
          type="button"
          role="switch"
          aria-checked={allowed}
          aria-labelledby={labelId}
          aria-busy={change.isPending}
          disabled={change.isPending}
          onClick={() => void toggle()}
          className="relative inline-flex h-6 w-11 shrink-0 items-center rounded-full border border-border bg-bg-subtle transition-colors aria-checked:border-transparent aria-checked:bg-brand disabled:opacity-60"
        >
          <span
            className={`inline-flex size-5 items-center justify-center rounded-full bg-white shadow transition-transform ${allowed ? "translate-x-5" : "translate-x-0.5"}`}
          >
            {change.isPending && <Loader2 className="size-3 animate-spin text-slate-500" aria-hidden="true" />}
          </span>
        </button>
      </div>
      {/* The description above already changed; screen readers hear the server's confirmation. */}
      <p aria-live="polite" className="sr-only">
        {message}
      </p>
      {error && (
        <div className="mt-2">
          <Banner tone="error">{error}</Banner>
        </div>
      )}
    </div>
  );
}
