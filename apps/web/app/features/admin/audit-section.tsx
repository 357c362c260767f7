/** The audit log: newest first, filtered by type, actor, target and time; "Load more" follows the seq cursor. */
import { EVENT_TYPE_NAMES } from "@flotilla/contracts/events";
import { type FormEvent, useState } from "react";
import { type AuditEvent, type Filter, usePagedList } from "./api";
import {
  DateField,
  Field,
  FilterActions,
  formatDateTime,
  inputClass,
  PagedTable,
  SectionHeader,
  tableClass,
  tdClass,
} from "./ui";

const TARGET_TYPES = [
  "signup",
  "newsletter_subscriber",
  "customer",
  "license",
  "machine",
  "admin",
  "webhook_endpoint",
  "person",
  "erasure",
];
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
      // No value (absent or null) reads as "none", never as JSON's "null".
      const show = (value: unknown) =>
        value === undefined || value === null ? "none" : typeof value === "string" ? value : JSON.stringify(value);
      return key in b ? `${key}: ${show(b[key])} → ${show(a[key])}` : `${key}: ${show(a[key])}`;
    })
    .join("; ");
}

export function AuditSection() {
  const [draft, setDraft] = useState(EMPTY);
  const [filter, setFilter] = useState<Filter>({});
  const list = usePagedList<AuditEvent>(["admin", "audit"], "/api/admin/audit", filter);
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
              placeholder="admin, anonymous, an email…"
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
        <DateField label="From" value={draft.from} onChange={set("from")} />
        <DateField label="To" value={draft.to} onChange={set("to")} />
        <FilterActions
          className="sm:col-span-2 lg:col-span-3 xl:col-span-6"
          onClear={() => {
            setDraft(EMPTY);
            setFilter({});
          }}
        />
      </form>
      <PagedTable
        list={list}
        label="Audit events"
        loadingLabel="Loading the audit log…"
        empty="No events match these filters."
        tableClassName={`${tableClass} min-w-[64rem]`}
        columns={["When", "Event", "Actor", "Target", "Change", "Reason", "From"]}
        row={(row) => (
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
              {/* A license is recognised by its key's hint; the id stays in the tooltip and the Target id filter. */}
              {row.license_key_hint ? (
                <span className="block font-mono text-xs text-fg-muted" title={row.target.id}>
                  key {row.license_key_hint}
                </span>
              ) : (
                <span className="block wrap-anywhere font-mono text-xs text-fg-muted">{row.target.id}</span>
              )}
            </td>
            <td className={`${tdClass} break-words text-xs`}>{change(row.before, row.after)}</td>
            <td className={tdClass}>{row.reason ?? "—"}</td>
            <td className={`${tdClass} font-mono text-xs`}>{row.address ?? "—"}</td>
          </tr>
        )}
      />
    </section>
  );
}
