/**
 * Beta testers (issue 36, decision 0062): open a wave, pick early-access signups and admit them (one invitation per
 * address, ever, mailed with a sign-in link), follow each wave's funnel, resend or withdraw an invitation.
 */
import { BETA_FUNNEL_STEPS, type BetaInvitation } from "@flotilla/contracts/beta";
import { type FormEvent, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { adminErrorMessage } from "./api";
import { type BetaCandidate, useBetaCandidates, useBetaInvitations, useBetaMutations, useBetaWaves } from "./beta-api";
import {
  ConfirmDialog,
  ErrorNotice,
  Field,
  formatDateTime,
  inputClass,
  Loading,
  SectionHeader,
  TableFrame,
  tableClass,
  tdClass,
  thClass,
} from "./ui";

const today = () => new Date().toISOString().slice(0, 10);

export function BetaSection() {
  const waves = useBetaWaves();
  const { createWave } = useBetaMutations();
  const [name, setName] = useState("");
  const [date, setDate] = useState(today);
  const [waveError, setWaveError] = useState<string | null>(null);
  const [openWave, setOpenWave] = useState<string | null>(null);

  async function create(event: FormEvent) {
    event.preventDefault();
    setWaveError(null);
    try {
      await createWave.mutateAsync({ name: name.trim(), date });
      setName("");
    } catch (error) {
      setWaveError(adminErrorMessage(error));
    }
  }

  return (
    <section aria-labelledby="beta-title" className="space-y-10">
      <SectionHeader
        id="beta-title"
        title="Beta testers"
        description="Admit early-access signups in waves. Each address gets one invitation, mailed with a sign-in link; signing in with that address accepts it and opens the beta channel's downloads."
      />

      <div>
        <h3 className="text-base font-semibold">Waves</h3>
        <form aria-label="Open a wave" onSubmit={create} className="mt-3 flex flex-wrap items-end gap-3">
          <Field label="Wave name" className="w-full sm:w-64">
            {(id) => (
              <input
                id={id}
                className={inputClass}
                value={name}
                maxLength={80}
                onChange={(event) => setName(event.target.value)}
              />
            )}
          </Field>
          <Field label="Opens on" className="w-full sm:w-44">
            {(id) => (
              <input
                id={id}
                type="date"
                className={inputClass}
                value={date}
                onChange={(event) => setDate(event.target.value)}
              />
            )}
          </Field>
          <button
            type="submit"
            className={buttonClass("primary", "sm", "h-10")}
            disabled={createWave.isPending || name.trim() === ""}
          >
            Open wave
          </button>
        </form>
        {waveError && (
          <div className="mt-3">
            <Banner tone="error">{waveError}</Banner>
          </div>
        )}
        {waves.isPending ? (
          <Loading label="Loading waves..." />
        ) : waves.isError ? (
          <ErrorNotice message={adminErrorMessage(waves.error)} onRetry={() => void waves.refetch()} />
        ) : waves.data.length === 0 ? (
          <p className="mt-4 text-sm text-fg-muted">No waves yet.</p>
        ) : (
          <TableFrame label="Waves and their funnel">
            <table className={tableClass}>
              <thead>
                <tr>
                  <th className={thClass}>Wave</th>
                  {BETA_FUNNEL_STEPS.map((step) => (
                    <th key={step.key} className={thClass}>
                      {step.label}
                    </th>
                  ))}
                  <th className={thClass}>
                    <span className="sr-only">Invitations</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {waves.data.map((wave) => (
                  <tr key={wave.id}>
                    <td className={tdClass}>
                      <span className="font-medium">{wave.name}</span>
                      <span className="block text-xs text-fg-muted">opens {wave.date}</span>
                    </td>
                    {BETA_FUNNEL_STEPS.map((step) => {
                      const figure = wave.funnel[step.key];
                      return (
                        <td key={step.key} className={`${tdClass} tabular-nums`}>
                          {figure.count}
                          {figure.last_at && (
                            <span className="block text-xs text-fg-muted">latest {formatDateTime(figure.last_at)}</span>
                          )}
                        </td>
                      );
                    })}
                    <td className={tdClass}>
                      <button
                        type="button"
                        className={buttonClass("secondary", "sm")}
                        aria-expanded={openWave === wave.id}
                        onClick={() => setOpenWave((current) => (current === wave.id ? null : wave.id))}
                      >
                        {openWave === wave.id ? "Hide invitations" : `Invitations of ${wave.name}`}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
        {openWave && <Invitations waveId={openWave} />}
      </div>

      {waves.data && waves.data.length > 0 && <Admit waves={waves.data.map(({ id, name }) => ({ id, name }))} />}
    </section>
  );
}

function Admit({ waves }: { waves: { id: string; name: string }[] }) {
  const [waveId, setWaveId] = useState(waves[0]!.id);
  const [platform, setPlatform] = useState("");
  const [role, setRole] = useState("");
  const [from, setFrom] = useState("");
  const [filter, setFilter] = useState<Record<string, string>>({});
  const candidates = useBetaCandidates(filter);
  const { admit } = useBetaMutations();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<{ tone: "success" | "error"; text: string } | null>(null);

  function apply(event: FormEvent) {
    event.preventDefault();
    setSelected(new Set());
    setFilter({ platform, role, from });
  }

  function toggle(candidate: BetaCandidate) {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(candidate.signup_id)) next.delete(candidate.signup_id);
      else next.add(candidate.signup_id);
      return next;
    });
  }

  async function send() {
    setOutcome(null);
    try {
      const { data } = await admit.mutateAsync({ waveId, signupIds: [...selected] });
      setSelected(new Set());
      const already = data.already_invited > 0 ? `; ${data.already_invited} already held one (nothing sent)` : "";
      setOutcome({
        tone: "success",
        text: `${data.admitted} ${data.admitted === 1 ? "invitation" : "invitations"} sent${already}.`,
      });
    } catch (error) {
      setOutcome({ tone: "error", text: adminErrorMessage(error) });
    }
  }

  return (
    <div>
      <h3 className="text-base font-semibold">Admit signups</h3>
      <form aria-label="Filter signups to admit" onSubmit={apply} className="mt-3 flex flex-wrap items-end gap-3">
        <Field label="Platform" className="w-full sm:w-40">
          {(id) => (
            <input id={id} className={inputClass} value={platform} onChange={(e) => setPlatform(e.target.value)} />
          )}
        </Field>
        <Field label="Role" className="w-full sm:w-40">
          {(id) => <input id={id} className={inputClass} value={role} onChange={(e) => setRole(e.target.value)} />}
        </Field>
        <Field label="Signed up from" className="w-full sm:w-44">
          {(id) => (
            <input id={id} type="date" className={inputClass} value={from} onChange={(e) => setFrom(e.target.value)} />
          )}
        </Field>
        <button type="submit" className={buttonClass("secondary", "sm", "h-10")}>
          Apply filters
        </button>
      </form>
      {candidates.isPending ? (
        <Loading label="Loading signups..." />
      ) : candidates.isError ? (
        <ErrorNotice message={adminErrorMessage(candidates.error)} onRetry={() => void candidates.refetch()} />
      ) : candidates.data.length === 0 ? (
        <p className="mt-4 text-sm text-fg-muted">No signup without an invitation matches.</p>
      ) : (
        <TableFrame label="Signups without an invitation">
          <table className={tableClass}>
            <thead>
              <tr>
                <th className={thClass}>
                  <span className="sr-only">Select</span>
                </th>
                <th className={thClass}>Email</th>
                <th className={thClass}>Platform</th>
                <th className={thClass}>Role</th>
                <th className={thClass}>Signed up</th>
              </tr>
            </thead>
            <tbody>
              {candidates.data.map((candidate) => (
                <tr key={candidate.signup_id}>
                  <td className={tdClass}>
                    <input
                      type="checkbox"
                      aria-label={`Select ${candidate.email}`}
                      checked={selected.has(candidate.signup_id)}
                      onChange={() => toggle(candidate)}
                    />
                  </td>
                  <td className={`${tdClass} break-all`}>{candidate.email}</td>
                  <td className={tdClass}>{candidate.platform}</td>
                  <td className={tdClass}>{candidate.role}</td>
                  <td className={tdClass}>{formatDateTime(candidate.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
      <div className="mt-4 flex flex-wrap items-end gap-3">
        <Field label="Into wave" className="w-full sm:w-64">
          {(id) => (
            <select id={id} className={inputClass} value={waveId} onChange={(event) => setWaveId(event.target.value)}>
              {waves.map((wave) => (
                <option key={wave.id} value={wave.id}>
                  {wave.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button
          type="button"
          className={buttonClass("primary", "sm", "h-10")}
          disabled={selected.size === 0 || admit.isPending}
          onClick={() => void send()}
        >
          Admit {selected.size} selected
        </button>
      </div>
      <div aria-live="polite" className="mt-3">
        {outcome && <Banner tone={outcome.tone}>{outcome.text}</Banner>}
      </div>
    </div>
  );
}

const STATUS_CLASS: Record<BetaInvitation["status"], string> = {
  invited: "text-amber-700 dark:text-amber-400",
  accepted: "text-emerald-700 dark:text-emerald-400",
  withdrawn: "text-fg-muted",
};

function Invitations({ waveId }: { waveId: string }) {
  const invitations = useBetaInvitations(waveId);
  const { resend, withdraw } = useBetaMutations();
  const [withdrawing, setWithdrawing] = useState<BetaInvitation | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(action: () => Promise<unknown>) {
    setError(null);
    try {
      await action();
      setWithdrawing(null);
    } catch (failure) {
      setError(adminErrorMessage(failure));
    }
  }

  if (invitations.isPending) return <Loading label="Loading invitations..." />;
  if (invitations.isError) return <ErrorNotice message={adminErrorMessage(invitations.error)} />;
  return (
    <div className="mt-4">
      {error && !withdrawing && <Banner tone="error">{error}</Banner>}
      {invitations.data.length === 0 ? (
        <p className="text-sm text-fg-muted">Nobody admitted into this wave yet.</p>
      ) : (
        <TableFrame label="Invitations of the wave">
          <table className={tableClass}>
            <thead>
              <tr>
                <th className={thClass}>Email</th>
                <th className={thClass}>Status</th>
                <th className={thClass}>Sent</th>
                <th className={thClass}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.data.map((invitation) => (
                <tr key={invitation.id}>
                  <td className={`${tdClass} break-all`}>{invitation.email}</td>
                  <td className={`${tdClass} ${STATUS_CLASS[invitation.status]}`}>
                    {invitation.status}
                    {invitation.accepted_at && (
                      <span className="block text-xs text-fg-muted">{formatDateTime(invitation.accepted_at)}</span>
                    )}
                  </td>
                  <td className={tdClass}>
                    {invitation.sends}× · last {formatDateTime(invitation.last_sent_at)}
                  </td>
                  <td className={tdClass}>
                    {invitation.status === "invited" && (
                      <div className="flex flex-wrap gap-2">
                        <button
                          type="button"
                          className={buttonClass("secondary", "sm")}
                          disabled={resend.isPending}
                          onClick={() => void run(() => resend.mutateAsync(invitation.id))}
                        >
                          Resend
                        </button>
                        <button
                          type="button"
                          className={buttonClass("ghost", "sm")}
                          onClick={() => {
                            setError(null);
                            setWithdrawing(invitation);
                          }}
                        >
                          Withdraw
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
      <ConfirmDialog
        open={withdrawing !== null}
        title="Withdraw this invitation?"
        confirmLabel="Withdraw invitation"
        tone="danger"
        busy={withdraw.isPending}
        error={withdrawing ? error : null}
        onConfirm={() => withdrawing && void run(() => withdraw.mutateAsync(withdrawing.id))}
        onClose={() => setWithdrawing(null)}
      >
        <p>
          {withdrawing?.email} is no longer a beta tester: the invitation is not sent again, and an accepted one stops
          opening the beta channel.
        </p>
      </ConfirmDialog>
    </div>
  );
}
