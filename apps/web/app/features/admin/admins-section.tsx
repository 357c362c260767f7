/**
 * Admins: who can use this console. Configured addresses (ADMIN_EMAILS) are listed but changed only in the
 * configuration; others are granted and revoked here, each with a reason the audit log keeps (decision 0047). The
 * server refuses revoking your own role and the last admin; the console offers neither.
 */
import { ADMIN_ERRORS } from "@flotilla/contracts/admin";
import { EMAIL_SHAPE } from "@flotilla/contracts/signup";
import { useQuery } from "@tanstack/react-query";
import { ShieldOff, UserPlus } from "lucide-react";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";
import { type AdminEntry, adminErrorMessage, adminMeQuery, useAdminRoleMutations, useAdmins } from "./api";
import { ReasonField, useReason } from "./license-action-dialog";
import { ErrorNotice, Field, FormActions, formatDateTime, inputClass, Loading, SectionHeader } from "./ui";

type Mutations = ReturnType<typeof useAdminRoleMutations>;

export function AdminsSection() {
  const admins = useAdmins();
  const me = useQuery(adminMeQuery);
  const mutations = useAdminRoleMutations();
  const [granting, setGranting] = useState(false);
  const [revoking, setRevoking] = useState<AdminEntry | null>(null);
  const [message, setMessage] = useState("");
  const myEmail = me.data?.email.toLowerCase();

  return (
    <section aria-labelledby="admins-title">
      <SectionHeader
        id="admins-title"
        title="Admins"
        description="Who can use this console. Grant or revoke the role here; each change is recorded in the audit log with its reason."
        actions={
          <button
            type="button"
            className={buttonClass("primary", "sm")}
            onClick={() => {
              mutations.grant.reset();
              setGranting(true);
            }}
          >
            <UserPlus className="size-4" aria-hidden="true" />
            Grant admin
          </button>
        }
      />
      <div aria-live="polite">
        {message && (
          <div className="mt-4">
            <Banner tone="success">{message}</Banner>
          </div>
        )}
      </div>
      {admins.isPending ? (
        <Loading label="Loading admins…" />
      ) : admins.isError ? (
        <ErrorNotice message={adminErrorMessage(admins.error)} onRetry={() => void admins.refetch()} />
      ) : (
        <ul
          aria-label="Admins"
          className="mt-6 divide-y divide-border rounded-xl border border-border bg-bg-elevated text-sm"
        >
          {admins.data.map((admin) => {
            const mine = admin.email.toLowerCase() === myEmail;
            return (
              <li key={admin.email} className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
                <div className="min-w-0 flex-1">
                  <p className="wrap-anywhere font-medium">
                    {admin.email}
                    {mine && <span className="ml-2 font-normal text-fg-muted">(you)</span>}
                  </p>
                  <p className="mt-0.5 text-xs text-fg-muted">
                    {admin.source === "config"
                      ? "From ADMIN_EMAILS: changed in the server's configuration"
                      : `Granted by ${admin.granted_by ?? "—"}, ${formatDateTime(admin.granted_at)}`}
                  </p>
                </div>
                {admin.source === "granted" && !mine && (
                  <button
                    type="button"
                    className={buttonClass("secondary", "sm")}
                    aria-label={`Revoke admin for ${admin.email}`}
                    onClick={() => {
                      mutations.revoke.reset();
                      setRevoking(admin);
                    }}
                  >
                    <ShieldOff className="size-4" aria-hidden="true" />
                    Revoke
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <Modal
        open={granting}
        onClose={() => setGranting(false)}
        title="Grant admin"
        closeDisabled={mutations.grant.isPending}
        className="max-w-lg"
      >
        {granting && (
          <GrantForm
            mutation={mutations.grant}
            onClose={() => setGranting(false)}
            onDone={(text) => {
              setGranting(false);
              setMessage(text);
            }}
          />
        )}
      </Modal>
      <Modal
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title="Revoke admin"
        closeDisabled={mutations.revoke.isPending}
        className="max-w-lg"
      >
        {revoking && (
          <RevokeForm
            key={revoking.email}
            admin={revoking}
            mutation={mutations.revoke}
            onClose={() => setRevoking(null)}
            onDone={(text) => {
              setRevoking(null);
              setMessage(text);
            }}
          />
        )}
      </Modal>
    </section>
  );
}

function GrantForm({
  mutation,
  onClose,
  onDone,
}: {
  mutation: Mutations["grant"];
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const reason = useReason();
  const emailRef = useRef<HTMLInputElement>(null);
  const [email, setEmail] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  // After useReason's own focus (effects run in order): the address comes first in this form.
  useEffect(() => {
    const timer = setTimeout(() => emailRef.current?.focus());
    return () => clearTimeout(timer);
  }, []);

  function submit(event: FormEvent) {
    event.preventDefault();
    const address = email.trim();
    if (!EMAIL_SHAPE.test(address) || address.length > 254) {
      setProblem(ADMIN_ERRORS.adminEmailInvalid);
      emailRef.current?.focus();
      return;
    }
    setProblem(null);
    const why = reason.checked();
    if (why === null) return;
    mutation.mutate({ email: address, reason: why }, { onSuccess: (answer) => onDone(answer.message) });
  }

  return (
    <form onSubmit={submit} noValidate className="mt-3 space-y-4 text-sm">
      <p className="text-fg-muted">
        The address can use this console as soon as it signs in; it need not have an account yet.
      </p>
      <Field label="Email">
        {(id) => (
          <>
            <input
              ref={emailRef}
              id={id}
              type="email"
              required
              autoComplete="off"
              maxLength={254}
              placeholder="name@example.com"
              className={inputClass}
              value={email}
              onChange={(event) => setEmail(event.target.value)}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-problem` : undefined}
            />
            {problem && (
              <p id={`${id}-problem`} role="alert" className="text-sm text-red-700 dark:text-red-400">
                {problem}
              </p>
            )}
          </>
        )}
      </Field>
      <ReasonField {...reason.field} />
      {mutation.isError && <Banner tone="error">{adminErrorMessage(mutation.error)}</Banner>}
      <FormActions busy={mutation.isPending} onCancel={onClose} Icon={UserPlus} label="Grant admin" />
    </form>
  );
}

function RevokeForm({
  admin,
  mutation,
  onClose,
  onDone,
}: {
  admin: AdminEntry;
  mutation: Mutations["revoke"];
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const reason = useReason();

  function submit(event: FormEvent) {
    event.preventDefault();
    const why = reason.checked();
    if (why !== null) mutation.mutate({ email: admin.email, reason: why }, { onSuccess: (a) => onDone(a.message) });
  }

  return (
    <form onSubmit={submit} noValidate className="mt-3 space-y-4 text-sm">
      <p className="text-fg-muted">
        <span className="wrap-anywhere font-medium text-fg">{admin.email}</span> loses access to this console at once.
        Their account and sign-in stay as they are.
      </p>
      <ReasonField {...reason.field} />
      {mutation.isError && <Banner tone="error">{adminErrorMessage(mutation.error)}</Banner>}
      <FormActions busy={mutation.isPending} onCancel={onClose} Icon={ShieldOff} label="Revoke admin" tone="danger" />
    </form>
  );
}
