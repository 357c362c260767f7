/**
 * Releases (issue 36): the download switch per platform (closed by default: the site and the portal keep the spec's
 * "coming soon" until a platform is opened), the releases with their artifacts and download counts per platform,
 * Yank (confirmed, with a reason) and Promote, and the operator tokens CI publishes with (the secret shown once,
 * revocable). Publishing itself is `flotilla-license release publish` with such a token.
 */
import { ArrowUpCircle, Ban, KeyRound, Plus } from "lucide-react";
import { type FormEvent, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { CopyButton } from "../../components/copy-button";
import { Modal } from "../../components/modal";
import { adminErrorMessage } from "./api";
import {
  type OperatorToken,
  type ReleaseChannel,
  type ReleaseListItem,
  type ReleasePlatform,
  useOperatorTokens,
  usePlatformSwitches,
  useReleaseMutations,
  useReleases,
} from "./releases-api";
import {
  ConfirmDialog,
  ErrorNotice,
  Field,
  FormActions,
  formatDateTime,
  inputClass,
  Loading,
  SectionHeader,
  TableFrame,
  tableClass,
  tdClass,
  thClass,
} from "./ui";

/** The contract's lists, restated so no schema code reaches the console's chunk (the types keep them in step). */
const RELEASE_PLATFORMS = ["macos", "windows", "linux"] as const satisfies readonly ReleasePlatform[];
const RELEASE_CHANNELS = ["stable", "rc", "beta", "alpha", "dev"] as const satisfies readonly ReleaseChannel[];

export const PLATFORM_NAMES: Record<ReleasePlatform, string> = { macos: "macOS", windows: "Windows", linux: "Linux" };

type Mutations = ReturnType<typeof useReleaseMutations>;

export function ReleasesSection() {
  const mutations = useReleaseMutations();
  return (
    <section aria-labelledby="releases-title" className="space-y-10">
      <SectionHeader
        id="releases-title"
        title="Releases"
        description="Builds of the desktop app. CI publishes them with flotilla-license release publish and an operator token; customers get them once their platform's downloads are open."
      />
      <PlatformSwitches mutations={mutations} />
      <ReleaseList mutations={mutations} />
      <OperatorTokens mutations={mutations} />
    </section>
  );
}

function PlatformSwitches({ mutations }: { mutations: Mutations }) {
  const switches = usePlatformSwitches();
  const [error, setError] = useState<string | null>(null);
  const pending = mutations.setPlatform.isPending ? mutations.setPlatform.variables?.platform : undefined;
  return (
    <section aria-labelledby="downloads-title">
      <h3 id="downloads-title" className="text-base font-semibold">
        Downloads per platform
      </h3>
      <p className="mt-1 text-sm text-fg-muted">
        While a platform is closed, the home page and the portal say it is coming soon. Opening it offers the newest
        published build to every customer on that platform.
      </p>
      {switches.isPending ? (
        <Loading label="Loading platforms…" />
      ) : switches.isError ? (
        <ErrorNotice message={adminErrorMessage(switches.error)} onRetry={() => void switches.refetch()} />
      ) : (
        <ul className="mt-4 grid gap-3 sm:grid-cols-3">
          {RELEASE_PLATFORMS.map((platform) => {
            const state = switches.data.find((item) => item.platform === platform);
            const open = state?.open === true;
            return (
              <li key={platform} className="flex flex-col gap-3 rounded-xl border border-border bg-bg-elevated p-4">
                <div className="flex items-center justify-between gap-2">
                  <span className="font-medium">{PLATFORM_NAMES[platform]}</span>
                  <StateBadge tone={open ? "good" : "muted"}>{open ? "Open" : "Closed"}</StateBadge>
                </div>
                <p className="text-xs text-fg-muted">
                  {state?.changed_at
                    ? `${open ? "Opened" : "Closed"} ${formatDateTime(state.changed_at)}${state.changed_by ? ` by ${state.changed_by}` : ""}`
                    : "Closed since the start"}
                </p>
                <button
                  type="button"
                  role="switch"
                  aria-checked={open}
                  aria-label={`${PLATFORM_NAMES[platform]} downloads`}
                  className={buttonClass(open ? "secondary" : "primary", "sm", "self-start")}
                  disabled={pending !== undefined}
                  onClick={() => {
                    setError(null);
                    mutations.setPlatform.mutate(
                      { platform, open: !open },
                      { onError: (failure) => setError(adminErrorMessage(failure)) },
                    );
                  }}
                >
                  {open ? "Close downloads" : "Open downloads"}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {error && (
        <div className="mt-3">
          <Banner tone="error">{error}</Banner>
        </div>
      )}
    </section>
  );
}

function StateBadge({ tone, children }: { tone: "good" | "warn" | "muted" | "info"; children: string }) {
  const colours = {
    good: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950/60 dark:text-emerald-300",
    warn: "bg-red-100 text-red-800 dark:bg-red-950/60 dark:text-red-300",
    info: "bg-sky-100 text-sky-800 dark:bg-sky-950/60 dark:text-sky-300",
    muted: "bg-bg-subtle text-fg-muted",
  } as const;
  return (
    <span className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${colours[tone]}`}>{children}</span>
  );
}

const STATE_TONE = { published: "good", yanked: "warn", draft: "muted" } as const;

function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function ReleaseList({ mutations }: { mutations: Mutations }) {
  const releases = useReleases();
  const [yanking, setYanking] = useState<ReleaseListItem | null>(null);
  const [promoting, setPromoting] = useState<ReleaseListItem | null>(null);
  return (
    <section aria-labelledby="release-list-title">
      <h3 id="release-list-title" className="text-base font-semibold">
        Published and draft releases
      </h3>
      {releases.isPending ? (
        <Loading label="Loading releases…" />
      ) : releases.isError ? (
        <ErrorNotice message={adminErrorMessage(releases.error)} onRetry={() => void releases.refetch()} />
      ) : releases.data.length === 0 ? (
        <p className="mt-3 text-sm text-fg-muted">
          No releases yet. Publish one from CI: <code className="font-mono">flotilla-license release publish</code>.
        </p>
      ) : (
        <TableFrame label="Releases">
          <table className={tableClass}>
            <thead>
              <tr>
                <th className={thClass}>Version</th>
                <th className={thClass}>State</th>
                <th className={thClass}>Published</th>
                <th className={thClass}>Downloads</th>
                <th className={thClass}>Artifacts</th>
                <th className={thClass}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {releases.data.map((release) => (
                <tr key={release.id}>
                  <td className={tdClass}>
                    <span className="font-mono font-medium">{release.version}</span>
                    <span className="block text-xs text-fg-muted">{release.channel}</span>
                  </td>
                  <td className={tdClass}>
                    <StateBadge tone={STATE_TONE[release.state]}>{release.state}</StateBadge>
                  </td>
                  <td className={`${tdClass} whitespace-nowrap`}>
                    {formatDateTime(release.published_at)}
                    {release.yanked_at && (
                      <span className="block text-xs text-fg-muted">yanked {formatDateTime(release.yanked_at)}</span>
                    )}
                  </td>
                  <td className={tdClass}>
                    <span className="font-medium">{release.downloads.total.toLocaleString("en-US")}</span>
                    <span className="block whitespace-nowrap text-xs text-fg-muted">
                      {RELEASE_PLATFORMS.map(
                        (platform) =>
                          `${PLATFORM_NAMES[platform]} ${release.downloads.by_platform[platform].toLocaleString("en-US")}`,
                      ).join(" · ")}
                    </span>
                  </td>
                  <td className={tdClass}>
                    <ul className="space-y-0.5 text-xs">
                      {release.artifacts.map((artifact) => (
                        <li key={artifact.id}>
                          <span className="font-medium">
                            {PLATFORM_NAMES[artifact.platform]} {artifact.arch}
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
                  <td className={`${tdClass} whitespace-nowrap text-right`}>
                    {release.state === "published" && (
                      <div className="flex justify-end gap-1">
                        <button
                          type="button"
                          className={buttonClass("ghost", "sm")}
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
                          className={buttonClass("ghost", "sm", "text-red-700 dark:text-red-400")}
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
      <YankDialog release={yanking} mutation={mutations.yank} onClose={() => setYanking(null)} />
      <PromoteDialog release={promoting} mutation={mutations.promote} onClose={() => setPromoting(null)} />
    </section>
  );
}

function YankDialog({
  release,
  mutation,
  onClose,
}: {
  release: ReleaseListItem | null;
  mutation: Mutations["yank"];
  onClose: () => void;
}) {
  const [reason, setReason] = useState("");
  return (
    <ConfirmDialog
      open={release !== null}
      title={release ? `Yank ${release.version}?` : "Yank"}
      confirmLabel="Yank release"
      tone="danger"
      busy={mutation.isPending}
      error={mutation.isError ? adminErrorMessage(mutation.error) : null}
      onClose={onClose}
      onConfirm={() => {
        if (!release) return;
        mutation.mutate(
          { id: release.id, reason: reason.trim() },
          {
            onSuccess: () => {
              setReason("");
              onClose();
            },
          },
        );
      }}
    >
      <p>
        Nothing offers it any more: update checks, feeds and the portal skip it, and its download links stop working.
        Apps that installed it keep it. This cannot be undone.
      </p>
      <Field label="Reason (optional, kept in the audit log)">
        {(id) => (
          <input
            id={id}
            maxLength={500}
            className={inputClass}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
        )}
      </Field>
    </ConfirmDialog>
  );
}

function PromoteDialog({
  release,
  mutation,
  onClose,
}: {
  release: ReleaseListItem | null;
  mutation: Mutations["promote"];
  onClose: () => void;
}) {
  const [channel, setChannel] = useState<ReleaseChannel>("stable");
  const choices = RELEASE_CHANNELS.filter((item) => item !== release?.channel);
  const chosen = choices.includes(channel) ? channel : (choices[0] ?? "stable");
  return (
    <ConfirmDialog
      open={release !== null}
      title={release ? `Promote ${release.version}` : "Promote"}
      confirmLabel={`Move to ${chosen}`}
      busy={mutation.isPending}
      error={mutation.isError ? adminErrorMessage(mutation.error) : null}
      onClose={onClose}
      onConfirm={() => {
        if (release) mutation.mutate({ id: release.id, channel: chosen }, { onSuccess: onClose });
      }}
    >
      <p>
        It is on <span className="font-medium text-fg">{release?.channel}</span>. On another channel it is offered to
        whoever follows that channel (stable: every customer).
      </p>
      <Field label="Channel">
        {(id) => (
          <select
            id={id}
            className={inputClass}
            value={chosen}
            onChange={(event) => setChannel(event.target.value as ReleaseChannel)}
          >
            {choices.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        )}
      </Field>
    </ConfirmDialog>
  );
}

function OperatorTokens({ mutations }: { mutations: Mutations }) {
  const tokens = useOperatorTokens();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<OperatorToken | null>(null);
  return (
    <section aria-labelledby="tokens-title">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h3 id="tokens-title" className="text-base font-semibold">
            Operator tokens
          </h3>
          <p className="mt-1 text-sm text-fg-muted">
            What CI publishes with (<code className="font-mono">FLOTILLA_OPERATOR_TOKEN</code>). Only a hash is kept: a
            token is shown once.
          </p>
        </div>
        <button
          type="button"
          className={buttonClass("primary", "sm", "self-start")}
          onClick={() => {
            mutations.createToken.reset();
            setCreating(true);
          }}
        >
          <Plus className="size-4" aria-hidden="true" />
          Create token
        </button>
      </div>
      {tokens.isPending ? (
        <Loading label="Loading tokens…" />
      ) : tokens.isError ? (
        <ErrorNotice message={adminErrorMessage(tokens.error)} onRetry={() => void tokens.refetch()} />
      ) : tokens.data.length === 0 ? (
        <p className="mt-3 text-sm text-fg-muted">No operator tokens.</p>
      ) : (
        <ul className="mt-4 divide-y divide-border rounded-xl border border-border bg-bg-elevated">
          {tokens.data.map((token) => (
            <li key={token.id} className="flex flex-wrap items-center gap-x-4 gap-y-1 px-4 py-3 text-sm">
              <span className="font-medium">{token.name}</span>
              <span className="font-mono text-xs text-fg-muted">flt_op_{token.hint}…</span>
              <span className="text-xs text-fg-muted">
                created {formatDateTime(token.created_at)} · last used {formatDateTime(token.last_used_at, "never")}
              </span>
              <span className="ml-auto">
                {token.revoked_at ? (
                  <StateBadge tone="muted">{`revoked ${formatDateTime(token.revoked_at)}`}</StateBadge>
                ) : (
                  <button
                    type="button"
                    className={buttonClass("ghost", "sm", "text-red-700 dark:text-red-400")}
                    aria-label={`Revoke ${token.name}`}
                    onClick={() => {
                      mutations.revokeToken.reset();
                      setRevoking(token);
                    }}
                  >
                    Revoke
                  </button>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      <Modal
        open={creating}
        onClose={() => setCreating(false)}
        title="Create an operator token"
        closeDisabled={mutations.createToken.isPending}
        className="max-w-md"
      >
        {creating && (
          <CreateTokenForm
            mutation={mutations.createToken}
            onClose={() => setCreating(false)}
            onCreated={(name, token) => {
              setCreating(false);
              setSecret({ name, token });
            }}
          />
        )}
      </Modal>
      <Modal open={secret !== null} onClose={() => setSecret(null)} title="Operator token" className="max-w-lg">
        {secret && (
          <div className="mt-3 space-y-4 text-sm">
            <p className="text-fg-muted">
              Give <span className="font-medium text-fg">{secret.name}</span> this token as{" "}
              <code className="font-mono">FLOTILLA_OPERATOR_TOKEN</code>: it may create, publish, yank and promote
              releases.
            </p>
            <Banner tone="warning" title="Store it now">
              It won't be shown again. Lost it? Revoke it and create another.
            </Banner>
            <div className="flex items-center gap-2 rounded-lg border border-border bg-bg-subtle px-3 py-2">
              <code className="min-w-0 flex-1 wrap-anywhere font-mono text-sm">{secret.token}</code>
              <CopyButton value={secret.token} label="Copy token" />
            </div>
            <div className="flex justify-end">
              <button type="button" className={buttonClass("primary", "md")} onClick={() => setSecret(null)}>
                I've stored it
              </button>
            </div>
          </div>
        )}
      </Modal>
      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? `Revoke ${revoking.name}?` : "Revoke"}
        confirmLabel="Revoke token"
        tone="danger"
        busy={mutations.revokeToken.isPending}
        error={mutations.revokeToken.isError ? adminErrorMessage(mutations.revokeToken.error) : null}
        onClose={() => setRevoking(null)}
        onConfirm={() => {
          if (revoking) mutations.revokeToken.mutate(revoking.id, { onSuccess: () => setRevoking(null) });
        }}
      >
        <p>Whatever uses it can no longer publish. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

function CreateTokenForm({
  mutation,
  onClose,
  onCreated,
}: {
  mutation: Mutations["createToken"];
  onClose: () => void;
  onCreated: (name: string, token: string) => void;
}) {
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  function submit(event: FormEvent) {
    event.preventDefault();
    if (name.trim() === "") return setProblem("Name the token (who or what uses it, e.g. GitHub Actions).");
    setProblem(null);
    mutation.mutate(name.trim(), { onSuccess: (answer) => onCreated(answer.data.name, answer.data.token) });
  }
  return (
    <form onSubmit={submit} noValidate className="mt-4 space-y-4">
      <Field label="Name">
        {(id) => (
          <input
            id={id}
            maxLength={80}
            className={inputClass}
            value={name}
            placeholder="GitHub Actions"
            onChange={(event) => setName(event.target.value)}
          />
        )}
      </Field>
      {problem && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {problem}
        </p>
      )}
      {mutation.isError && <Banner tone="error">{adminErrorMessage(mutation.error)}</Banner>}
      <FormActions busy={mutation.isPending} onCancel={onClose} Icon={KeyRound} label="Create token" />
    </form>
  );
}
