/**
 * Webhooks: register an endpoint (URL + events from the contracts' list), its secret shown once; enable/disable,
 * rotate the secret (shown once), send a test event, the delivery log with response codes, resend a delivery.
 */
import { EVENT_TYPES, WEBHOOK_EVENT_TYPES } from "@flotilla/contracts/events";
import { Loader2, Plus, RefreshCw } from "lucide-react";
import { type FormEvent, useId, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { CopyButton } from "../../components/copy-button";
import { Modal } from "../../components/modal";
import {
  adminErrorMessage,
  deliveriesPath,
  resendDelivery,
  usePagedList,
  useWebhookMutations,
  useWebhooks,
  type WebhookDelivery,
  type WebhookEndpoint,
} from "./api";
import {
  ConfirmDialog,
  ErrorNotice,
  Field,
  formatDateTime,
  inputClass,
  Loading,
  PagedTable,
  SectionHeader,
  tdClass,
} from "./ui";

export function WebhooksSection() {
  const endpoints = useWebhooks();
  const mutations = useWebhookMutations();
  const [registering, setRegistering] = useState(false);
  const [secret, setSecret] = useState<{ url: string; value: string } | null>(null);

  return (
    <section aria-labelledby="webhooks-title">
      <SectionHeader
        id="webhooks-title"
        title="Webhooks"
        description="Endpoints that receive events signed the Standard Webhooks way, at least once, retried for three days."
        actions={
          <button
            type="button"
            className={buttonClass("primary", "sm")}
            onClick={() => {
              mutations.create.reset();
              setRegistering(true);
            }}
          >
            <Plus className="size-4" aria-hidden="true" />
            Register endpoint
          </button>
        }
      />
      {endpoints.isPending ? (
        <Loading label="Loading endpoints…" />
      ) : endpoints.isError ? (
        <ErrorNotice message={adminErrorMessage(endpoints.error)} onRetry={() => void endpoints.refetch()} />
      ) : endpoints.data.length === 0 ? (
        <p className="mt-6 text-sm text-fg-muted">No endpoints yet.</p>
      ) : (
        <div className="mt-6 space-y-4">
          {endpoints.data.map((endpoint) => (
            <EndpointCard
              key={endpoint.id}
              endpoint={endpoint}
              mutations={mutations}
              onSecret={(value) => setSecret({ url: endpoint.url, value })}
            />
          ))}
        </div>
      )}
      <RegisterDialog
        open={registering}
        mutation={mutations.create}
        onClose={() => setRegistering(false)}
        onCreated={(url, value) => {
          setRegistering(false);
          setSecret({ url, value });
        }}
      />
      <Modal open={secret !== null} onClose={() => setSecret(null)} title="Signing secret" className="max-w-lg">
        {secret && (
          <div className="mt-3 space-y-4 text-sm">
            <p className="text-fg-muted">
              Receivers verify each request with this secret and any Standard Webhooks library (headers{" "}
              <code className="font-mono">webhook-id</code>, <code className="font-mono">webhook-timestamp</code>,{" "}
              <code className="font-mono">webhook-signature</code>), for{" "}
              <span className="wrap-anywhere text-fg">{secret.url}</span>.
            </p>
            <Banner tone="warning" title="Store it now">
              It won't be shown again. Lost it? Rotate the secret.
            </Banner>
            <div className="flex items-center gap-2 rounded-lg border border-border bg-bg-subtle px-3 py-2">
              <code className="min-w-0 flex-1 wrap-anywhere font-mono text-sm">{secret.value}</code>
              <CopyButton value={secret.value} label="Copy secret" />
            </div>
            <div className="flex justify-end">
              <button type="button" className={buttonClass("primary", "md")} onClick={() => setSecret(null)}>
                I've stored it
              </button>
            </div>
          </div>
        )}
      </Modal>
    </section>
  );
}

type Mutations = ReturnType<typeof useWebhookMutations>;

function RegisterDialog({
  open,
  mutation,
  onClose,
  onCreated,
}: {
  open: boolean;
  mutation: Mutations["create"];
  onClose: () => void;
  onCreated: (url: string, secret: string) => void;
}) {
  return (
    <Modal
      open={open}
      onClose={onClose}
      title="Register a webhook endpoint"
      closeDisabled={mutation.isPending}
      className="max-w-2xl"
    >
      {open && <RegisterForm mutation={mutation} onClose={onClose} onCreated={onCreated} />}
    </Modal>
  );
}

function RegisterForm({
  mutation,
  onClose,
  onCreated,
}: {
  mutation: Mutations["create"];
  onClose: () => void;
  onCreated: (url: string, secret: string) => void;
}) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const legendId = useId();

  function submit(event: FormEvent) {
    event.preventDefault();
    if (url.trim() === "") return setProblem("Enter the endpoint's URL.");
    if (events.length === 0) return setProblem("Choose at least one event.");
    setProblem(null);
    mutation.mutate(
      { url: url.trim(), events, description: description.trim() },
      { onSuccess: (answer) => onCreated(answer.data.url, answer.secret) },
    );
  }

  const toggle = (type: string) =>
    setEvents((current) => (current.includes(type) ? current.filter((item) => item !== type) : [...current, type]));

  return (
    <form onSubmit={submit} noValidate className="mt-4 space-y-4">
      <Field label="URL">
        {(id) => (
          <input
            id={id}
            type="url"
            required
            placeholder="https://example.com/webhooks/flotilla"
            className={inputClass}
            value={url}
            onChange={(event) => setUrl(event.target.value)}
          />
        )}
      </Field>
      <Field label="Description (optional)">
        {(id) => (
          <input
            id={id}
            maxLength={200}
            className={inputClass}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
        )}
      </Field>
      <fieldset aria-labelledby={legendId}>
        <div className="flex items-center justify-between gap-2">
          <legend id={legendId} className="text-xs font-medium text-fg-muted">
            Events
          </legend>
          <button
            type="button"
            className="text-xs font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-300"
            onClick={() => setEvents(events.length === WEBHOOK_EVENT_TYPES.length ? [] : [...WEBHOOK_EVENT_TYPES])}
          >
            {events.length === WEBHOOK_EVENT_TYPES.length ? "Clear all" : "Select all"}
          </button>
        </div>
        <div className="mt-2 grid gap-2 sm:grid-cols-2">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label
              key={type}
              className="flex cursor-pointer items-start gap-2 rounded-lg border border-border p-2 text-sm"
            >
              <input
                type="checkbox"
                value={type}
                checked={events.includes(type)}
                onChange={() => toggle(type)}
                className="mt-0.5 size-4 accent-sky-600"
              />
              <span className="min-w-0">
                <span className="block font-mono text-xs">{type}</span>
                <span className="block text-xs text-fg-muted">{EVENT_TYPES[type].description}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {problem && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {problem}
        </p>
      )}
      {mutation.isError && <Banner tone="error">{adminErrorMessage(mutation.error)}</Banner>}
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" className={buttonClass("ghost", "md")} onClick={onClose} disabled={mutation.isPending}>
          Cancel
        </button>
        <button type="submit" className={buttonClass("primary", "md")} disabled={mutation.isPending}>
          {mutation.isPending && <Loader2 className="size-4 animate-spin" aria-hidden="true" />}
          Register
        </button>
      </div>
    </form>
  );
}

function EndpointCard({
  endpoint,
  mutations,
  onSecret,
}: {
  endpoint: WebhookEndpoint;
  mutations: Mutations;
  onSecret: (secret: string) => void;
}) {
  const [message, setMessage] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<"rotate" | "delete" | null>(null);
  const [busy, setBusy] = useState(false);
  const [showDeliveries, setShowDeliveries] = useState(false);

  async function act(run: () => Promise<unknown>, done: string) {
    setBusy(true);
    setError(null);
    setMessage("");
    try {
      await run();
      setMessage(done);
      return true;
    } catch (failure) {
      setError(adminErrorMessage(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-label={`Endpoint ${endpoint.url}`} className="rounded-xl border border-border bg-bg-elevated p-4">
      <div className="flex flex-wrap items-center gap-3">
        <span className="min-w-0 wrap-anywhere font-mono text-sm">{endpoint.url}</span>
        <span
          className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${
            endpoint.enabled
              ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-950/60 dark:text-emerald-300"
              : "bg-bg-subtle text-fg-muted"
          }`}
        >
          {endpoint.enabled ? "Enabled" : "Disabled"}
        </span>
      </div>
      {endpoint.description && <p className="mt-1 text-sm text-fg-muted">{endpoint.description}</p>}
      {!endpoint.enabled && endpoint.disabled_reason && (
        <p className="mt-1 text-sm text-amber-800 dark:text-amber-300">{endpoint.disabled_reason}</p>
      )}
      <p className="mt-2 text-xs text-fg-muted">
        Events: <span className="font-mono">{endpoint.events.join(", ")}</span> · registered{" "}
        {formatDateTime(endpoint.created_at)}
      </p>
      <div className="mt-4 flex flex-wrap gap-2">
        <button
          type="button"
          className={buttonClass("secondary", "sm")}
          disabled={busy}
          onClick={() =>
            void act(
              () => mutations.update.mutateAsync({ id: endpoint.id, changes: { enabled: !endpoint.enabled } }),
              endpoint.enabled ? "Endpoint disabled." : "Endpoint enabled.",
            )
          }
        >
          {endpoint.enabled ? "Disable" : "Enable"}
        </button>
        <button
          type="button"
          className={buttonClass("secondary", "sm")}
          disabled={busy}
          onClick={() => void act(() => mutations.test.mutateAsync(endpoint.id), "Test event queued.")}
        >
          Send test event
        </button>
        <button
          type="button"
          className={buttonClass("secondary", "sm")}
          disabled={busy}
          onClick={() => setConfirm("rotate")}
        >
          Rotate secret
        </button>
        <button
          type="button"
          className={buttonClass("secondary", "sm")}
          aria-expanded={showDeliveries}
          onClick={() => setShowDeliveries((shown) => !shown)}
        >
          {showDeliveries ? "Hide deliveries" : "Show deliveries"}
        </button>
        <button
          type="button"
          className={buttonClass("ghost", "sm", "text-red-700 dark:text-red-400")}
          disabled={busy}
          onClick={() => setConfirm("delete")}
        >
          Delete
        </button>
      </div>
      <p role="status" className="mt-3 text-sm text-emerald-700 empty:hidden dark:text-emerald-400">
        {message}
      </p>
      {error && (
        <div className="mt-3">
          <Banner tone="error">{error}</Banner>
        </div>
      )}
      {showDeliveries && <DeliveryLog endpointId={endpoint.id} onMessage={setMessage} onError={setError} />}
      <ConfirmDialog
        open={confirm === "rotate"}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        busy={busy}
        error={null}
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          let secret = "";
          const ok = await act(async () => {
            secret = (await mutations.rotate.mutateAsync(endpoint.id)).secret;
          }, "Secret rotated. The previous one keeps signing for 24 hours.");
          setConfirm(null);
          if (ok) onSecret(secret);
        }}
      >
        <p>
          A new secret signs every request from now on; the previous one also signs for 24 hours, so receivers can
          switch over.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === "delete"}
        title="Delete this endpoint?"
        confirmLabel="Delete endpoint"
        tone="danger"
        busy={busy}
        error={null}
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          setConfirm(null);
          await act(() => mutations.remove.mutateAsync(endpoint.id), "Endpoint deleted.");
        }}
      >
        <p>
          <span className="wrap-anywhere">{endpoint.url}</span> receives nothing more, and events waiting for it are
          dropped.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function DeliveryLog({
  endpointId,
  onMessage,
  onError,
}: {
  endpointId: string;
  onMessage: (message: string) => void;
  onError: (message: string | null) => void;
}) {
  const list = usePagedList<WebhookDelivery>(["admin", "deliveries", endpointId], deliveriesPath(endpointId), {});
  const [resending, setResending] = useState<string | null>(null);

  async function resend(delivery: WebhookDelivery) {
    setResending(delivery.id);
    onError(null);
    try {
      onMessage((await resendDelivery(endpointId, delivery.id)).message);
      void list.refetch();
    } catch (failure) {
      onError(adminErrorMessage(failure));
    } finally {
      setResending(null);
    }
  }

  return (
    <div className="mt-4">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">Deliveries</h3>
        <button
          type="button"
          className={buttonClass("ghost", "sm")}
          onClick={() => void list.refetch()}
          disabled={list.isFetching}
        >
          <RefreshCw className={`size-4 ${list.isFetching ? "animate-spin" : ""}`} aria-hidden="true" />
          Refresh
        </button>
      </div>
      <PagedTable
        list={list}
        label="Deliveries"
        loadingLabel="Loading deliveries…"
        empty="No deliveries yet. Events are sent within a few seconds."
        emptyClassName="mt-2"
        columns={["When", "Event", "Attempt", "Response", "Time"]}
        actions
        row={(row) => {
          const ok = row.status_code !== null && row.status_code >= 200 && row.status_code < 300;
          return (
            <tr key={row.id}>
              <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(row.created_at)}</td>
              <td className={`${tdClass} font-mono text-xs`}>{row.event_type}</td>
              <td className={tdClass}>{row.attempt}</td>
              <td className={tdClass}>
                <span
                  className={`font-mono font-semibold ${ok ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}`}
                >
                  {row.status_code ?? "—"}
                </span>
                {row.error && <span className="block text-xs text-fg-muted">{row.error}</span>}
                {row.next_attempt_at && (
                  <span className="block text-xs text-fg-muted">Next retry {formatDateTime(row.next_attempt_at)}</span>
                )}
                {row.gave_up && (
                  <span className="block text-xs text-red-700 dark:text-red-400">No more retries: resend it</span>
                )}
              </td>
              <td className={tdClass}>{row.duration_ms} ms</td>
              <td className={tdClass}>
                <button
                  type="button"
                  className={buttonClass("secondary", "sm")}
                  disabled={resending !== null}
                  onClick={() => void resend(row)}
                >
                  Resend
                </button>
              </td>
            </tr>
          );
        }}
      />
    </div>
  );
}
