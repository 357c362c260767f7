/** The audit log: newest first, filtered by type, actor, target and time; "Load more" follows the seq cursor. */
import { EVENT_TYPE_NAMES } from "@flotilla/contracts/events";
import { type FormEvent, useState } from "react";
import { buttonClass } from "../../components/button";
import { type AuditEvent, adminErrorMessage, type Filter, usePagedList } from "./api";
import {
  ErrorNotice,
  Field,
  formatDateTime,
  inputClass,
  Loading,
  LoadMore,
  SectionHeader,
  TableFrame,
  tableClass,
  tdClass,
  thClass,
} from "./ui";

const TARGET_TYPES = ["signup", "newsletter_subscriber", "customer", "license", "machine", "admin", "webhook_endpoint"];
const EMPTY = { type: "", actor: "", target_type: "", target_id: "", from: "", to: "" };

/** before → after, compactly: `status: active → suspended`. */
function change(before: unknown, after: unknown): string {
  const b = before && typeof before === "object" ? (before as Record<string, unknown>) : {};
  const a = after && typeof after === "object" ? (after as Record<string, unknown>) : {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  if (keys.length === 0) return "—";
  return keys
    .slice(0, 4)
    .map((key) => {
      const show = (value: unknown) =>
        value === undefined ? "∅" : typeof value === "string" ? value : JSON.stringify(value);
      return key in b ? `${key}: ${show(b[key])} → ${show(a[key])}` : `${key}: ${show(a[key])}`;
    })
    .join("; ");
}

export function AuditSection() {
  const [draft, setDraft] = useState(EMPTY);
  const [filter, setFilter] = useState<Filter>({});
  const list = usePagedList<AuditEvent>(["admin", "audit"], "/api/admin/audit", filter);
  const rows = list.data?.pages.flatMap((page) => page.data) ?? [];
  const set = (key: keyof typeof EMPTY) => (value: string) => setDraft((current) => ({ ...current, [key]: value }));

  function apply(event: FormEvent) {
    event.preventDefault();
    setFilter({ ...draft });
  }

  return (
    <section aria-labelledby="audit-title">
      <SectionHeader
        id="audit-title"
        title="Audit log"
        description="Every change, who made it, from where, and why. Append-only."
      />
      <form
        aria-label="Filter audit events"
        onSubmit={apply}
        className="mt-6 grid gap-3 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-6"
      >
        <Field label="Event type">
          {(id) => (
            <select
              id={id}
              className={inputClass}
              value={draft.type}
              onChange={(event) => set("type")(event.target.value)}
            >
              <option value="">Any</option>
              {EVENT_TYPE_NAMES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Actor">
          {(id) => (
            <input
              id={id}
              type="search"
              placeholder="admin, service, an email…"
              className={inputClass}
              value={draft.actor}
              onChange={(event) => set("actor")(event.target.value)}
            />
          )}
        </Field>
        <Field label="Target type">
          {(id) => (
            <select
              id={id}
              className={inputClass}
              value={draft.target_type}
              onChange={(event) => set("target_type")(event.target.value)}
            >
              <option value="">Any</option>
              {TARGET_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Target id">
          {(id) => (
            <input
              id={id}
              type="search"
              className={inputClass}
              value={draft.target_id}
              onChange={(event) => set("target_id")(event.target.value)}
            />
          )}
        </Field>
        <Field label="From">
          {(id) => (
            <input
              id={id}
              type="date"
              className={inputClass}
              value={draft.from}
              onChange={(event) => set("from")(event.target.value)}
            />
          )}
        </Field>
        <Field label="To">
          {(id) => (
            <input
              id={id}
              type="date"
              className={inputClass}
              value={draft.to}
              onChange={(event) => set("to")(event.target.value)}
            />
          )}
        </Field>
        <div className="flex items-end gap-2 sm:col-span-2 lg:col-span-3 xl:col-span-6">
          <button type="submit" className={buttonClass("primary", "sm")}>
            Apply filters
          </button>
          <button
            type="button"
            className={buttonClass("ghost", "sm")}
            onClick={() => {
              setDraft(EMPTY);
              setFilter({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {list.isPending ? (
        <Loading label="Loading the audit log…" />
      ) : list.isError ? (
        <ErrorNotice message={adminErrorMessage(list.error)} onRetry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <p className="mt-6 text-sm text-fg-muted">No events match these filters.</p>
      ) : (
        <>
          <TableFrame label="Audit events">
            <table className={`${tableClass} min-w-[64rem]`} aria-label="Audit events">
              <thead>
                <tr>
                  <th className={thClass}>When</th>
                  <th className={thClass}>Event</th>
                  <th className={thClass}>Actor</th>
                  <th className={thClass}>Target</th>
                  <th className={thClass}>Change</th>
                  <th className={thClass}>Reason</th>
                  <th className={thClass}>From</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.id}>
                    <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(row.occurred_at)}</td>
                    <td className={`${tdClass} font-mono text-xs`}>{row.type}</td>
                    <td className={tdClass}>
                      {row.actor.type}
                      {row.actor.email && (
                        <span className="block whitespace-nowrap text-xs text-fg-muted">{row.actor.email}</span>
                      )}
                    </td>
                    <td className={tdClass}>
                      {row.target.type}
                      <span className="block break-all font-mono text-xs text-fg-muted">{row.target.id}</span>
                    </td>
                    <td className={`${tdClass} break-words text-xs`}>{change(row.before, row.after)}</td>
                    <td className={tdClass}>{row.reason ?? "—"}</td>
                    <td className={`${tdClass} font-mono text-xs`}>{row.address ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
          <LoadMore
            shown={rows.length}
            hasMore={list.hasNextPage}
            loading={list.isFetchingNextPage}
            onLoad={() => void list.fetchNextPage()}
          />
        </>
      )}
    </section>
  );
}
