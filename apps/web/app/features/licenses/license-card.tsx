import { BRAND } from "@flotilla/contracts/brand";
import type { License } from "@flotilla/contracts/licensing";
import { planByTier } from "@flotilla/contracts/plans";
import { ArrowRightLeft, Download, KeyRound, Power, RefreshCcw } from "lucide-react";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { buttonClass } from "../../components/button";
import { CopyButton } from "../../components/copy-button";
import { ComingSoonNotice, useComingSoon } from "../../lib/coming-soon";
import { formatDisplayDate } from "../../lib/portal-format";
import { DevicePanel } from "../devices/device-panel";
import { detectPlatform, PLATFORM_NAMES, useDownload } from "./downloads";
import { CHIP_DETAILS, featureChips } from "./license-helpers";
import { LicenseKey } from "./license-key";
import { LicenseNextStep } from "./license-next-step";
import { LicenseStatus } from "./license-status";
import { OfflineFilesSetting } from "./offline-files-setting";
import { PreviousKeyNotice } from "./previous-key-notice";
import { RefusedActivationsNotice } from "./refused-activations-notice";
import { RotateKeyDialog } from "./rotate-key-dialog";
import { RunningExecutions } from "./running-executions";
import { TierBadge } from "./tier-badge";

const BRAND_NAME = BRAND.name;

const ACTIONS = [
  { label: "Transfer", Icon: ArrowRightLeft, feature: "License transfer" },
  { label: "Download", Icon: Download, feature: "License download" },
  { label: "Deactivate", Icon: Power, feature: "License deactivation" },
] as const;

/** Sizes as the download caption shows them: "84.2 MB". */
const formatSize = (bytes: number) =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(1)} GB`
    : bytes >= 1024 ** 2
      ? `${(bytes / 1024 ** 2).toFixed(1)} MB`
      : `${Math.max(1, Math.round(bytes / 1024))} KB`;

interface LicenseCardProps {
  license: License;
  onChanged?: () => void;
  /** Move focus to the card's title when it appears (the license was just created: the opener has gone). */
  focusOnMount?: boolean;
}

/** One license: tier, status, key, bound machine, dates, feature chips, actions and its devices. */
export function LicenseCard({ license, onChanged, focusOnMount = false }: LicenseCardProps) {
  const titleId = useId();
  const downloadCaptionId = useId();
  const titleRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusOnMount) titleRef.current?.focus();
  }, [focusOnMount]);
  const [rotating, setRotating] = useState(false);
  const comingSoon = useComingSoon();
  const [platform] = useState(() => detectPlatform(typeof navigator === "undefined" ? undefined : navigator));
  const download = useDownload(license.license_key, platform);
  const [downloadFailed, setDownloadFailed] = useState(false);
  const [removalRequest, setRemovalRequest] = useState(0);
  const planName = planByTier(license.tier)?.name ?? `${license.tier} license`;
  return (
    <article
      aria-labelledby={titleId}
      className="rounded-2xl border border-border bg-bg-elevated p-4 shadow-sm sm:p-6"
      data-license-id={license.id}
    >
      <header className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex min-w-0 flex-wrap items-center gap-3">
          <TierBadge tier={license.tier} />
          <h3 id={titleId} ref={titleRef} tabIndex={-1} className="font-semibold">
            {planName}
          </h3>
        </div>
        <LicenseStatus status={license.status} />
      </header>

      <dl className="mt-5 grid gap-x-6 gap-y-4 text-sm sm:grid-cols-2">
        <Field label="License Key" wide>
          <span className="flex items-center gap-1 rounded-lg border border-border bg-bg-subtle py-1 pl-3 pr-1">
            <KeyRound className="size-4 shrink-0 text-fg-muted" aria-hidden="true" />
            <LicenseKey value={license.license_key} />
            <CopyButton value={license.license_key} label="Copy license key" />
          </span>
          <PreviousKeyNotice validUntil={license.previous_key_valid_until ?? null} />
        </Field>
        <Field label="Machine ID">
          {license.machine_id ? (
            <code className="wrap-anywhere font-mono">{license.machine_id}</code>
          ) : (
            <span className="text-fg-muted">Not activated</span>
          )}
        </Field>
        <Field label="Expires">{formatDisplayDate(license.expires_at)}</Field>
        <Field label="Last Seen">{formatDisplayDate(license.last_seen)}</Field>
      </dl>

      <RefusedActivationsNotice
        licenseKey={license.license_key}
        refusals={license.refused_activations ?? []}
        onFreeSlot={() => setRemovalRequest((count) => count + 1)}
        onDismissed={onChanged}
      />

      {license.executions && (
        <RunningExecutions licenseKey={license.license_key} executions={license.executions} onChanged={onChanged} />
      )}

      {/* A new customer's next step, until a device is active (then the machine ID is set). */}
      {!license.machine_id && <LicenseNextStep />}

      <ul className="mt-5 flex flex-wrap gap-2" aria-label="Features">
        {featureChips(license.features).map((chip) => (
          <li
            key={chip}
            title={CHIP_DETAILS[chip]}
            className="rounded-full border border-border bg-bg-subtle px-3 py-1 text-xs font-medium text-fg-muted"
          >
            {chip}
          </li>
        ))}
      </ul>

      <OfflineFilesSetting
        licenseKey={license.license_key}
        allowed={license.offline_files_allowed}
        onChanged={onChanged}
      />

      <div className="mt-5 flex flex-wrap gap-2">
        {ACTIONS.map(({ label, Icon, feature }) => (
          <button
            key={label}
            type="button"
            onClick={() => {
              if (label !== "Download" || !download.artifact) return comingSoon.announce(feature);
              setDownloadFailed(false);
              // The link lives 5 minutes: ask for a fresh one; a platform closed meanwhile is coming soon again.
              download.start().then(
                (started) => started || comingSoon.announce(feature),
                () => setDownloadFailed(true),
              );
            }}
            className={buttonClass("secondary", "sm")}
            {...(label === "Download" && download.artifact ? { "aria-describedby": downloadCaptionId } : {})}
          >
            <Icon className="size-4" aria-hidden="true" />
            {label}
          </button>
        ))}
        <button type="button" onClick={() => setRotating(true)} className={buttonClass("secondary", "sm")}>
          <RefreshCcw className="size-4" aria-hidden="true" />
          Rotate key
        </button>
      </div>
      {download.release && download.artifact && platform && (
        <p
          id={downloadCaptionId}
          className="mt-2 text-sm text-fg-muted"
          data-download-version={download.release.version}
        >
          Download gets {BRAND_NAME} {download.release.version} for {PLATFORM_NAMES[platform]}
          {download.release.channel === "stable" ? "" : ` (${download.release.channel})`}:{" "}
          <span className="wrap-anywhere font-mono text-xs">{download.artifact.filename}</span>,{" "}
          {formatSize(download.artifact.size)}.
        </p>
      )}
      <div className="mt-2 empty:hidden">
        <ComingSoonNotice notice={comingSoon.notice} />
        {downloadFailed && (
          <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
            The download could not start. Check your connection and try again.
          </p>
        )}
      </div>
      <RotateKeyDialog
        open={rotating}
        licenseKey={license.license_key}
        onClose={() => setRotating(false)}
        onRotated={() => onChanged?.()}
      />

      <div className="mt-6">
        <DevicePanel licenseKey={license.license_key} onChanged={onChanged} removalRequest={removalRequest} />
      </div>
    </article>
  );
}

function Field({ label, wide, children }: { label: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={`min-w-0 ${wide ? "sm:col-span-2" : ""}`}>
      <dt className="text-xs font-medium tracking-wide text-fg-muted uppercase">{label}</dt>
      <dd className="mt-1">{children}</dd>
    </div>
  );
}
