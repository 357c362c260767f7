/**
 * Releases (issue 36): what was published on which channel and how often each platform downloaded it, the download
 * switch per platform (closed until opened: the portal and the home page follow it, decision 0063), yank and promote,
 * and the operator tokens `flotilla-license release publish` uses (the secret is shown once). Uploading and
 * publishing are the CLI's; every change here is audited by the server.
 */
import {
  RELEASE_CHANNELS,
  RELEASE_PLATFORMS,
  type ReleaseChannel,
  type ReleasePlatform,
} from "@flotilla/contracts/releases";
import { ArrowUpCircle, Ban, KeyRound, Plus, Trash2 } from "lucide-react";
import { type FormEvent, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { CopyButton } from "../../components/copy-button";
import { adminErrorMessage } from "./api";
import {
  type OperatorToken,
  type ReleaseItem,
  useOperatorTokens,
  usePlatformSwitches,
  useReleaseMutations,
  useReleases,
} from "./releases-api";
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

export const PLATFORM_LABELS: Record<ReleasePlatform, string> = { macos: "macOS", windows: "Windows", linux: "Linux" };

const STATE_TONES: Record<ReleaseItem["state"], string> = {
  draft: "bg-bg-subtle text-fg-muted",
  published: "bg-emerald-500/10 text-emerald-700 dark:text-emerald-300",
  yanked: "bg-red-500/10 text-red-700 dark:text-red-300",
};

type Mutations = ReturnType<typeof useReleaseMutations>;

/** The API names who changed something by an email or by an account id: only an email means anything here. */
const byWhom = (who: string | null) => (who?.includes("@") ? ` by ${who}` : "");

const formatSize = (bytes: number) =>
  bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;

export function ReleasesSection() {
  const mutations = useReleaseMutations();
  const [message, setMessage] = useState("");
  return (
    <section aria-labelledby="releases-title" className="space-y-10">
      <div>
        <SectionHeader
          id="releases-title"
          title="Releases"
          description="Builds published with flotilla-license release publish, their downloads per platform, and who may download them. Yank or promote here; each change is recorded in the audit log."
        />
        <div aria-live="polite">
          {message && (
            <div className="mt-4">
              <Banner tone="success">{message}</Banner>
            </div>
          )}
        </div>
      </div>
      <PlatformSwitches mutations={mutations} onDone={setMessage} />
      <ReleaseList mutations={mutations} onDone={setMessage} />
      <OperatorTokens mutations={mutations} onDone={setMessage} />
    </section>
  );
}

function PlatformSwitches({ mutations, onDone }: { mutations: Mutations; onDone: (text: string) => void }) {
  const switches = usePlatformSwitches();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<ReleasePlatform | null>(null);
  async function toggle(platform: ReleasePlatform, open: boolean) {
    setError(null);
    setPending(platform);
    try {
      await mutations.setPlatform.mutateAsync({ platform, open });
      onDone(
        open
          ? `Downloads for ${PLATFORM_LABELS[platform]} are open: customers can download its newest build from the portal.`
          : `Downloads for ${PLATFORM_LABELS[platform]} are closed: the portal's Download is coming soon again.`,
      );
    } catch (caught) {
      setError(adminErrorMessage(caught));
    } finally {
      setPending(null);
    }
  }
  return (
    <div>
      <h3 className="text-base font-semibold">Downloads by platform</h3>
      <p className="mt-1 text-sm text-fg-muted">
        Closed by default. While a platform is closed, the portal's Download button and the home page say it is coming
        soon, and update checks find nothing for it.
      </p>
      {error && (
        <div className="mt-3">
          <Banner tone="error">{error}</Banner>
        </div>
      )}
      {switches.isPending ? (
        <Loading label="Loading the download switches…" />
      ) : switches.isError ? (
        <ErrorNotice message={adminErrorMessage(switches.error)} onRetry={() => void switches.refetch()} />
      ) : (
        <ul
          aria-label="Downloads by platform"
          className="mt-4 divide-y divide-border rounded-xl border border-border bg-bg-elevated text-sm"
        >
          {RELEASE_PLATFORMS.map((platform) => {
            const entry = switches.data.find((candidate) => candidate.platform === platform);
            const open = entry?.open ?? false;
            return (
              <li key={platform} className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
                <div className="min-w-0 flex-1">
                  <p className="font-medium">{PLATFORM_LABELS[platform]}</p>
                  <p className="mt-0.5 text-xs text-fg-muted">
                    {open ? "Open" : "Closed"}
                    {entry?.changed_at ? ` since ${formatDateTime(entry.changed_at)}${byWhom(entry.changed_by)}` : ""}
                  </p>
                </div>
                <button
                  type="button"
                  role="switch"
                  aria-checked={open}
                  aria-label={`Downloads for ${PLATFORM_LABELS[platform]}`}
                  disabled={pending !== null}
                  onClick={() => void toggle(platform, !open)}
                  className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full border border-border transition-colors disabled:opacity-60 ${
                    open ? "bg-emerald-600" : "bg-fg-muted/30"
                  }`}
                >
                  <span
                    aria-hidden="true"
                    className={`inline-block size-4 rounded-full bg-white shadow transition-transform ${
                      open ? "translate-x-6" : "translate-x-1"
                    }`}
                  />
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

function ReleaseList({ mutations, onDone }: { mutations: Mutations; onDone: (text: string) => void }) {
  const releases = useReleases();
  const [yanking, setYanking] = useState<ReleaseItem | null>(null);
  const [promoting, setPromoting] = useState<ReleaseItem | null>(null);
  return (
    <div>
      <h3 className="text-base font-semibold">Published and draft releases</h3>
      {releases.isPending ? (
        <Loading label="Loading releases…" />
      ) : releases.isError ? (
        <ErrorNotice message={adminErrorMessage(releases.error)} onRetry={() => void releases.refetch()} />
      ) : releases.data.length === 0 ? (
        <p className="mt-4 text-sm text-fg-muted">
          No release yet. Publish one with <code className="font-mono">flotilla-license release publish</code> and an
          operator token.
        </p>
      ) : (
        <TableFrame label="Releases">
          <table className={`${tableClass} min-w-[56rem]`} aria-label="Releases">
            <thead>
              <tr>
                {["Version", "Channel", "State", "Published", "Downloads", "Artifacts"].map((column) => (
                  <th key={column} className={thClass}>
                    {column}
                  </th>
                ))}
                <th className={thClass}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {releases.data.map((release) => (
                <tr key={release.id} data-release={release.version}>
                  <td className={`${tdClass} whitespace-nowrap font-mono font-medium`}>{release.version}</td>
                  <td className={tdClass}>{release.channel}</td>
                  <td className={tdClass}>
                    <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${STATE_TONES[release.state]}`}>
                      {release.state}
                    </span>
                    {release.yanked_at && (
                      <span className="mt-1 block text-xs text-fg-muted">{formatDateTime(release.yanked_at)}</span>
                    )}
                  </td>
                  <td className={tdClass}>{formatDateTime(release.published_at)}</td>
                  <td className={tdClass}>
                    <span className="font-medium">{release.downloads.total.toLocaleString("en-US")}</span>
                    <span className="block text-xs text-fg-muted">
                      {RELEASE_PLATFORMS.map(
                        (platform) =>
                          `${PLATFORM_LABELS[platform]} ${release.downloads.by_platform[platform].toLocaleString("en-US")}`,
                      ).join(" · ")}
                    </span>
                  </td>
                  <td className={tdClass}>
                    <ul className="space-y-1">
                      {release.artifacts.map((artifact) => (
                        <li key={artifact.id} className="text-xs">
                          <span className="font-medium">
                            {PLATFORM_LABELS[artifact.platform]} {artifact.arch}
                          </span>{" "}
                          <span className="wrap-anywhere font-mono text-fg-muted">{artifact.filename}</span>{" "}
                          <span className="text-fg-muted">
                            {formatSize(artifact.size)}
                            {artifact.upload_state === "pending" ? ", upload pending" : ""}
                          </span>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td className={`${tdClass} whitespace-nowrap`}>
                    {release.state === "published" && (
                      <div className="flex gap-2">
                        <button
                          type="button"
                          className={buttonClass("secondary", "sm")}
                          aria-label={`Promote ${release.version}`}
                          onClick={() => {
                            mutations.promote.reset();
                            setPromoting(release);
                          }}
                        >
                          <ArrowUpCircle className="size-4" aria-hidden="true" />
                          Promote
                        </button>
                        <button
                          type="button"
                          className={buttonClass("secondary", "sm")}
                          aria-label={`Yank ${release.version}`}
                          onClick={() => {
                            mutations.yank.reset();
                            setYanking(release);
                          }}
                        >
                          <Ban className="size-4" aria-hidden="true" />
                          Yank
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
      {yanking && (
        <YankDialog
          key={yanking.id}
          release={yanking}
          mutations={mutations}
          onClose={() => setYanking(null)}
          onDone={(text) => {
            setYanking(null);
            onDone(text);
          }}
        />
      )}
      {promoting && (
        <PromoteDialog
          key={promoting.id}
          release={promoting}
          mutations={mutations}
          onClose={() => setPromoting(null)}
          onDone={(text) => {
            setPromoting(null);
            onDone(text);
          }}
        />
      )}
    </div>
  );
}

function YankDialog({
  release,
  mutations,
  onClose,
  onDone,
}: {
  release: ReleaseItem;
  mutations: Mutations;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const [reason, setReason] = useState("");
  return (
    <ConfirmDialog
      open
      title={`Yank ${release.version}?`}
      confirmLabel="Yank release"
      tone="danger"
      busy={mutations.yank.isPending}
      error={mutations.yank.isError ? adminErrorMessage(mutations.yank.error) : null}
      onClose={onClose}
      onConfirm={() =>
        void mutations.yank
          .mutateAsync({ id: release.id, ...(reason.trim() ? { reason: reason.trim() } : {}) })
          .then(() => onDone(`${release.version} was yanked: it is no longer offered, and its links stop working.`))
          .catch(() => {})
      }
    >
      <p>
        Update checks stop offering it, its download links stop working at once, and apps that already fetched it refuse
        to install it. It cannot be published again.
      </p>
      <Field label="Reason (optional, kept in the audit log)">
        {(id) => (
          <input
            id={id}
            className={inputClass}
            value={reason}
            maxLength={500}
            onChange={(event) => setReason(event.target.value)}
          />
        )}
      </Field>
    </ConfirmDialog>
  );
}

function PromoteDialog({
  release,
  mutations,
  onClose,
  onDone,
}: {
  release: ReleaseItem;
  mutations: Mutations;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const choices = RELEASE_CHANNELS.filter((channel) => channel !== release.channel);
  const [channel, setChannel] = useState<ReleaseChannel>(choices.includes("stable") ? "stable" : choices[0]!);
  return (
    <ConfirmDialog
      open
      title={`Promote ${release.version}`}
      confirmLabel="Promote"
      busy={mutations.promote.isPending}
      error={mutations.promote.isError ? adminErrorMessage(mutations.promote.error) : null}
      onClose={onClose}
      onConfirm={() =>
        void mutations.promote
          .mutateAsync({ id: release.id, channel })
          .then(() => onDone(`${release.version} moved from ${release.channel} to ${channel}.`))
          .catch(() => {})
      }
    >
      <p>
        It is on <strong>{release.channel}</strong>. On another channel it is offered to whoever that channel reaches
        (stable: every customer).
      </p>
      <Field label="New channel">
        {(id) => (
          <select
            id={id}
            className={inputClass}
            value={channel}
            onChange={(event) => setChannel(event.target.value as ReleaseChannel)}
          >
            {choices.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        )}
      </Field>
    </ConfirmDialog>
  );
}

function OperatorTokens({ mutations, onDone }: { mutations: Mutations; onDone: (text: string) => void }) {
  const tokens = useOperatorTokens();
  const [name, setName] = useState("");
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<OperatorToken | null>(null);
  async function create(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    try {
      const answer = await mutations.createToken.mutateAsync({ name: name.trim() });
      setCreated({ name: answer.data.name, token: answer.data.token });
      setName("");
    } catch {
      // Shown below the form.
    }
  }
  const active = tokens.data?.filter((token) => !token.revoked_at) ?? [];
  return (
    <div>
      <h3 className="text-base font-semibold">Operator tokens</h3>
      <p className="mt-1 text-sm text-fg-muted">
        For CI and <code className="font-mono">flotilla-license release</code> (FLOTILLA_OPERATOR_TOKEN): they create,
        upload, publish, yank and promote releases, nothing else. Only a hash is kept: a token is shown once.
      </p>
      <form onSubmit={create} className="mt-4 flex flex-wrap items-end gap-2">
        <Field label="Token name" className="w-full sm:w-72">
          {(id) => (
            <input
              id={id}
              className={inputClass}
              value={name}
              maxLength={80}
              placeholder="e.g. GitHub Actions"
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        <button
          type="submit"
          className={buttonClass("primary", "sm", "h-10")}
          disabled={!name.trim() || mutations.createToken.isPending}
        >
          <Plus className="size-4" aria-hidden="true" />
          Create token
        </button>
      </form>
      {mutations.createToken.isError && (
        <div className="mt-3">
          <Banner tone="error">{adminErrorMessage(mutations.createToken.error)}</Banner>
        </div>
      )}
      {created && (
        <div className="mt-4 rounded-xl border border-amber-500/40 bg-amber-500/10 p-4 text-sm" data-created-token>
          <p className="font-medium">Copy the token “{created.name}” now: it is not shown again.</p>
          <div className="mt-2 flex items-center gap-1 rounded-lg border border-border bg-bg py-1 pl-3 pr-1">
            <KeyRound className="size-4 shrink-0 text-fg-muted" aria-hidden="true" />
            <code className="min-w-0 flex-1 wrap-anywhere font-mono text-xs">{created.token}</code>
            <CopyButton value={created.token} label="Copy operator token" />
          </div>
        </div>
      )}
      {tokens.isPending ? (
        <Loading label="Loading operator tokens…" />
      ) : tokens.isError ? (
        <ErrorNotice message={adminErrorMessage(tokens.error)} onRetry={() => void tokens.refetch()} />
      ) : tokens.data.length === 0 ? (
        <p className="mt-4 text-sm text-fg-muted">No operator token yet.</p>
      ) : (
        <ul
          aria-label="Operator tokens"
          className="mt-4 divide-y divide-border rounded-xl border border-border bg-bg-elevated text-sm"
        >
          {tokens.data.map((token) => (
            <li key={token.id} className="flex flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
              <div className="min-w-0 flex-1">
                <p className="wrap-anywhere font-medium">
                  {token.name} <span className="font-mono text-xs font-normal text-fg-muted">flt_op_{token.hint}…</span>
                </p>
                <p className="mt-0.5 text-xs text-fg-muted">
                  Created {formatDateTime(token.created_at)}
                  {byWhom(token.created_by)} · last used {formatDateTime(token.last_used_at, "never")}
                  {token.revoked_at ? ` · revoked ${formatDateTime(token.revoked_at)}` : ""}
                </p>
              </div>
              {!token.revoked_at && (
                <button
                  type="button"
                  className={buttonClass("secondary", "sm")}
                  aria-label={`Revoke token ${token.name}`}
                  onClick={() => {
                    mutations.revokeToken.reset();
                    setRevoking(token);
                  }}
                >
                  <Trash2 className="size-4" aria-hidden="true" />
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <p className="sr-only" aria-live="polite">
        {active.length} active operator {active.length === 1 ? "token" : "tokens"}
      </p>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ""}”?`}
        confirmLabel="Revoke token"
        tone="danger"
        busy={mutations.revokeToken.isPending}
        error={mutations.revokeToken.isError ? adminErrorMessage(mutations.revokeToken.error) : null}
        onClose={() => setRevoking(null)}
        onConfirm={() => {
          if (!revoking) return;
          const { id, name: revokedName } = revoking;
          void mutations.revokeToken
            .mutateAsync({ id })
            .then(() => {
              setRevoking(null);
              onDone(`The token “${revokedName}” is revoked: anything still using it is refused from now on.`);
            })
            .catch(() => {});
        }}
      >
        <p>Anything still using it (a CI job, a script) is refused from the next request. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
