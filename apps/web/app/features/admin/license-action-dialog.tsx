/** One dialog for every license action: a required reason, and the action's own fields (end date, tier, limit). */
import { ADMIN_ERRORS, type LicenseAction } from "@flotilla/contracts/admin";
import { TIER_IDS, tierById } from "@flotilla/contracts/tiers";
import { Loader2 } from "lucide-react";
import { type FormEvent, type Ref, useEffect, useId, useRef, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";
import { type AdminLicense, adminErrorMessage } from "./api";
import { Field, inputClass } from "./ui";

export type ActionKind = LicenseAction["action"];

export const ACTION_TEXT: Record<ActionKind, { button: string; title: string; submit: string; explain: string }> = {
  suspend: {
    button: "Suspend",
    title: "Suspend license",
    submit: "Suspend license",
    explain: "The desktop app stops validating on every machine until the license is reactivated.",
  },
  reactivate: {
    button: "Reactivate",
    title: "Reactivate license",
    submit: "Reactivate license",
    explain: "The license works again; its end date is kept.",
  },
  expire: {
    button: "Expire",
    title: "Expire license",
    submit: "Expire license",
    explain: "The license ends now. Extend it or reactivate it to undo.",
  },
  extend: {
    button: "Extend",
    title: "Extend license",
    submit: "Extend license",
    explain: "Set a new end date (the end of that day, UTC), or leave it empty for a license that never ends.",
  },
  change: {
    button: "Change tier or limit",
    title: "Change tier, device limit or license files",
    submit: "Save changes",
    explain:
      "A new tier brings its features and device limit; a device limit given here overrides it, but never below the slots in use. License files are the owner's switch: change it for them only when they ask.",
  },
};

function endOfDayUtc(date: string): string {
  return `${date}T23:59:59.000Z`;
}

export function LicenseActionDialog({
  license,
  kind,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  license: AdminLicense;
  kind: ActionKind | null;
  busy: boolean;
  error: unknown;
  onSubmit: (action: LicenseAction) => void;
  onClose: () => void;
}) {
  const text = kind ? ACTION_TEXT[kind] : ACTION_TEXT.suspend;
  return (
    <Modal open={kind !== null} onClose={onClose} title={text.title} closeDisabled={busy} className="max-w-lg">
      {kind && (
        <ActionForm
          key={kind}
          license={license}
          kind={kind}
          busy={busy}
          error={error}
          onSubmit={onSubmit}
          onClose={onClose}
        />
      )}
    </Modal>
  );
}

function ActionForm({
  license,
  kind,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  license: AdminLicense;
  kind: ActionKind;
  busy: boolean;
  error: unknown;
  onSubmit: (action: LicenseAction) => void;
  onClose: () => void;
}) {
  const text = ACTION_TEXT[kind];
  const reason = useReason();
  const [endDate, setEndDate] = useState(license.expires_at?.slice(0, 10) ?? "");
  const [tier, setTier] = useState(license.tier);
  const [limit, setLimit] = useState(String(license.max_machines));
  const [offlineFiles, setOfflineFiles] = useState(license.offline_files_allowed);

  function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = reason.checked();
    if (trimmed === null) return;
    if (kind === "extend") {
      onSubmit({ action: "extend", reason: trimmed, expires_at: endDate ? endOfDayUtc(endDate) : null });
    } else if (kind === "change") {
      const max = Number(limit);
      const tierDefault = tierById(tier)?.maxMachines;
      onSubmit({
        action: "change",
        reason: trimmed,
        ...(tier !== license.tier ? { tier } : {}),
        ...(Number.isInteger(max) &&
        max >= 1 &&
        (tier === license.tier ? max !== license.max_machines : max !== tierDefault)
          ? { max_machines: max }
          : {}),
        ...(offlineFiles !== license.offline_files_allowed ? { offline_files: offlineFiles } : {}),
      });
    } else {
      onSubmit({ action: kind, reason: trimmed });
    }
  }

  const serverError = error ? adminErrorMessage(error) : null;
  return (
    <form onSubmit={submit} noValidate className="mt-3 space-y-4">
      <p className="text-sm text-fg-muted">
        <span className="font-mono text-fg">{license.license_key}</span> — {text.explain}
      </p>
      {kind === "extend" && (
        <Field label="New end date">
          {(id) => (
            <input
              id={id}
              type="date"
              className={inputClass}
              value={endDate}
              onChange={(event) => setEndDate(event.target.value)}
            />
          )}
        </Field>
      )}
      {kind === "change" && (
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Tier">
            {(id) => (
              <select
                id={id}
                className={inputClass}
                value={tier}
                onChange={(event) => {
                  setTier(event.target.value);
                  const max = tierById(event.target.value)?.maxMachines;
                  if (max !== undefined) setLimit(String(max));
                }}
              >
                {TIER_IDS.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Device limit">
            {(id) => (
              <input
                id={id}
                type="number"
                min={1}
                max={1000}
                inputMode="numeric"
                className={inputClass}
                value={limit}
                onChange={(event) => setLimit(event.target.value)}
              />
            )}
          </Field>
          <label className="flex items-center gap-2 text-sm sm:col-span-2">
            <input
              type="checkbox"
              className="size-4 accent-[var(--color-brand)]"
              checked={offlineFiles}
              onChange={(event) => setOfflineFiles(event.target.checked)}
            />
            License files for offline devices allowed
          </label>
        </div>
      )}
      <ReasonField {...reason.field} />
      {serverError && <Banner tone="error">{serverError}</Banner>}
      <div className="flex flex-wrap justify-end gap-2 pt-2">
        <button type="button" className={buttonClass("ghost", "md")} onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className={buttonClass("primary", "md")} disabled={busy}>
          {busy && <Loader2 className="size-4 animate-spin" aria-hidden="true" />}
          {text.submit}
        </button>
      </div>
    </form>
  );
}

/**
 * The reason an admin change needs: `field` for <ReasonField>, focused once the dialog has opened; `checked()` answers
 * the trimmed reason, or says ADMIN_ERRORS.reasonRequired beside the field and answers null.
 */
export function useReason() {
  const ref = useRef<HTMLTextAreaElement>(null);
  const [value, setValue] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  // The dialog opens after its form renders (showModal in the parent's effect): focus the reason once it is open.
  useEffect(() => {
    const timer = setTimeout(() => ref.current?.focus());
    return () => clearTimeout(timer);
  }, []);
  /** The trimmed reason, or null after saying what is missing (and focusing the field). */
  const checked = (): string | null => {
    const trimmed = value.trim();
    if (trimmed.length < 3) {
      setProblem(ADMIN_ERRORS.reasonRequired);
      ref.current?.focus();
      return null;
    }
    setProblem(null);
    return trimmed;
  };
  return {
    field: { ref, value, onChange: setValue, problem },
    checked,
    /** A form's submit handler that passes the reason on when it is given (else says what is missing). */
    submitTo: (onSubmit: (reason: string) => void) => (event: FormEvent) => {
      event.preventDefault();
      const trimmed = checked();
      if (trimmed !== null) onSubmit(trimmed);
    },
  };
}

/** The reason every admin change needs: kept in the audit log (ADMIN_ERRORS.reasonRequired when missing). */
export function ReasonField({
  ref,
  value,
  onChange,
  problem,
}: {
  ref: Ref<HTMLTextAreaElement>;
  value: string;
  onChange: (value: string) => void;
  problem: string | null;
}) {
  const reasonId = useId();
  const reasonError = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={reasonId} className="text-sm font-medium">
        Reason
      </label>
      <textarea
        ref={ref}
        id={reasonId}
        required
        rows={3}
        maxLength={500}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${reasonError}-hint${problem ? ` ${reasonError}` : ""}`}
        className={`${inputClass} h-auto py-2`}
      />
      <p id={`${reasonError}-hint`} className="text-xs text-fg-muted">
        Kept in the audit log with your account and the change.
      </p>
      {problem && (
        <p id={reasonError} role="alert" className="text-sm text-red-700 dark:text-red-400">
          {problem}
        </p>
      )}
    </div>
  );
}
