/**
 * Privacy requests (decisions 0046, 0056): what the privacy policy promises — a copy of the personal data we hold, and
 * deletion — done by email address. Export downloads one JSON document that opens with a summary a person can read;
 * Erase deletes, after a confirmation that says what happens, with a reason kept in the audit log, and only once the
 * operator has typed the person's address (an erasure cannot be undone). The person is mailed a notice.
 */
import { AUDIT_LOG_NOTE, type PersonErasure } from "@flotilla/contracts/admin";
import { EMAIL_SHAPE } from "@flotilla/contracts/email";
import { Download, Loader2, Trash2 } from "lucide-react";
import { type FormEvent, useId, useState } from "react";
import { useSearchParams } from "react-router";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";
import { adminErrorMessage, downloadPersonExport, useErasePerson } from "./api";
import { ReasonField, useReason } from "./license-action-dialog";
import { Field, FormActions, inputClass, SectionHeader } from "./ui";

export function PrivacySection() {
  const [params] = useSearchParams();
  const [email, setEmail] = useState(params.get("email") ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const [exporting, setExporting] = useState(false);
  const [exported, setExported] = useState<string | null>(null);
  const [erasing, setErasing] = useState<string | null>(null);
  const [erased, setErased] = useState<{ email: string; answer: PersonErasure } | null>(null);
  const erase = useErasePerson();

  function address(): string | null {
    const trimmed = email.trim();
    if (!EMAIL_SHAPE.test(trimmed)) {
      setProblem("Enter the person's email address.");
      return null;
    }
    setProblem(null);
    return trimmed;
  }

  async function runExport(event: FormEvent) {
    event.preventDefault();
    const target = address();
    if (!target) return;
    setExporting(true);
    setExported(null);
    try {
      await downloadPersonExport(target);
      setExported(target);
    } catch (error) {
      setProblem(adminErrorMessage(error));
    } finally {
      setExporting(false);
    }
  }

  function openErase() {
    const target = address();
    if (!target) return;
    erase.reset();
    setErased(null);
    setErasing(target);
  }

  return (
    <section aria-labelledby="privacy-title">
      <SectionHeader
        id="privacy-title"
        title="Privacy requests"
        description="Export or erase everything we hold about a person, by email address: signups, newsletter, account, licenses, devices, sessions, usage and the messages about them."
      />
      <form
        onSubmit={runExport}
        noValidate
        className="mt-4 flex flex-col gap-3 rounded-xl border border-border bg-bg-elevated p-4 sm:flex-row sm:items-end"
      >
        <Field label="Email address" className="sm:max-w-md sm:flex-1">
          {(id) => (
            <input
              id={id}
              type="email"
              autoComplete="off"
              value={email}
              onChange={(event) => setEmail(event.target.value)}
              aria-invalid={problem ? true : undefined}
              placeholder="person@example.com"
              className={inputClass}
            />
          )}
        </Field>
        <div className="flex flex-wrap gap-2">
          <button type="submit" className={buttonClass("secondary", "md")} disabled={exporting}>
            {exporting ? (
              <Loader2 className="size-4 animate-spin" aria-hidden="true" />
            ) : (
              <Download className="size-4" aria-hidden="true" />
            )}
            Export JSON
          </button>
          <button type="button" className={buttonClass("danger", "md")} onClick={openErase}>
            <Trash2 className="size-4" aria-hidden="true" />
            Erase…
          </button>
        </div>
      </form>
      <div aria-live="polite" className="mt-4 space-y-3">
        {problem && <Banner tone="error">{problem}</Banner>}
        {exported && (
          <Banner tone="success" title="Exported">
            The file for {exported} is downloading: it opens with a summary of what we hold, where it came from and how
            long we keep it, then the data. Send it to the person from the support address; the export is recorded in
            the audit log.
          </Banner>
        )}
        {erased && (
          <Banner tone="success" title="Erased">
            {erased.email}: {summary(erased.answer)}. Reference {erased.answer.erasure_id} (quote it to the person).{" "}
            {erased.answer.audit_events_kept} audit log {erased.answer.audit_events_kept === 1 ? "entry" : "entries"}{" "}
            stay, naming them by id only. A notice of the erasure is on its way to the address.
          </Banner>
        )}
      </div>
      <p className="mt-6 max-w-3xl text-sm text-fg-muted">{AUDIT_LOG_NOTE}</p>
      <Modal
        open={erasing !== null}
        onClose={() => setErasing(null)}
        title="Erase this person?"
        closeDisabled={erase.isPending}
        className="max-w-lg"
      >
        {erasing && (
          <EraseForm
            key={erasing}
            email={erasing}
            busy={erase.isPending}
            error={erase.error}
            onClose={() => setErasing(null)}
            onSubmit={(reason) =>
              erase.mutate(
                { email: erasing, reason },
                {
                  onSuccess: (answer) => {
                    setErased({ email: erasing, answer: answer.data });
                    setErasing(null);
                  },
                },
              )
            }
          />
        )}
      </Modal>
    </section>
  );
}

function summary(answer: PersonErasure): string {
  const e = answer.erased;
  const parts: [number, string, string][] = [
    [e.signups, "signup", "signups"],
    [e.newsletter_subscriptions, "subscription", "subscriptions"],
    [e.beta_invitations, "beta invitation", "beta invitations"],
    [e.customers, "account", "accounts"],
    [e.licenses, "license", "licenses"],
    [e.machines, "device", "devices"],
    [e.sessions_revoked, "live session", "live sessions"],
    [e.messages + e.dev_mail, "message", "messages"],
  ];
  const done = parts.filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n === 1 ? one : many}`);
  return done.length > 0 ? `deleted ${done.join(", ")}` : "nothing left to delete";
}

function EraseForm({
  email,
  busy,
  error,
  onSubmit,
  onClose,
}: {
  email: string;
  busy: boolean;
  error: unknown;
  onSubmit: (reason: string) => void;
  onClose: () => void;
}) {
  const reason = useReason();
  const [typed, setTyped] = useState("");
  const confirmed = sameAddress(typed, email);
  const confirmId = useId();

  return (
    <form
      onSubmit={reason.submitTo((text) => {
        // The button is disabled until then; Enter in a field must not get round it.
        if (confirmed) onSubmit(text);
      })}
      noValidate
      className="mt-3 space-y-4 text-sm"
    >
      <p className="text-fg-muted">
        Everything we hold about <span className="font-medium wrap-anywhere text-fg">{email}</span> is deleted now, in
        one step that cannot be undone:
      </p>
      <ul className="list-disc space-y-1 pl-5 text-fg-muted">
        <li>their early-access answers and newsletter subscription;</li>
        <li>their account: every session ends, so they are signed out everywhere;</li>
        <li>their licenses: every device loses its slot at once, and the keys stop working;</li>
        <li>usage, validation counts, and the mail and webhook messages about them.</li>
      </ul>
      <p className="text-fg-muted">
        The audit log keeps its entries, which name people by id only, and records the erasure with your reason. Leave
        the address and name out of the reason.
      </p>
      <p className="text-fg-muted">
        We email the address a notice: what was erased, what the audit log keeps, and that signing in again creates a
        new, empty account.
      </p>
      <ReasonField {...reason.field} />
      <div className="flex flex-col gap-1">
        <label htmlFor={confirmId} className="text-sm font-medium">
          Type the person's email address to confirm
        </label>
        <input
          id={confirmId}
          type="text"
          inputMode="email"
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          aria-describedby={`${confirmId}-hint`}
          className={inputClass}
        />
        <p id={`${confirmId}-hint`} className="text-xs text-fg-muted">
          {confirmed ? "The address matches." : "Erase person stays off until the address matches."}
        </p>
      </div>
      {error ? <Banner tone="error">{adminErrorMessage(error)}</Banner> : null}
      <FormActions
        busy={busy}
        disabled={!confirmed}
        onCancel={onClose}
        Icon={Trash2}
        label="Erase person"
        tone="danger"
      />
    </form>
  );
}

/** The typed address confirms the request's: the same once trimmed, in any case. */
export function sameAddress(typed: string, email: string): boolean {
  return typed.trim().toLowerCase() === email.trim().toLowerCase();
}
