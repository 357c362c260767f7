/** Early access: search and filter signups, counts over time, keyset pages, CSV export of the filter. */
import { AI_EXPERIENCE_VALUES, INTEREST_OPTIONS, PLATFORM_VALUES, ROLE_OPTIONS } from "@flotilla/contracts/signup";
import { type FormEvent, useState } from "react";
import { type AdminSignup, adminErrorMessage, downloadCsv, type Filter, usePagedList, useSignupCounts } from "./api";
import { SignupChart } from "./signup-chart";
import {
  DateField,
  ErrorNotice,
  Field,
  FilterActions,
  formatDateTime,
  inputClass,
  Loading,
  PagedTable,
  SectionHeader,
  tdClass,
  useCsvExport,
} from "./ui";

const EMPTY = { q: "", role: "", platform: "", experience: "", interest: "", from: "", to: "" };
type Filters = typeof EMPTY;

/** "Advanced - Regularly use AI…" → "Advanced". */
const shortLabel = (value: string) => value.split(" - ")[0] ?? value;

function Select({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
}) {
  return (
    <Field label={label}>
      {(id) => (
        <select id={id} className={inputClass} value={value} onChange={(event) => onChange(event.target.value)}>
          <option value="">Any</option>
          {options.map((option) => (
            <option key={option} value={option}>
              {shortLabel(option)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function SignupsSection() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filter, setFilter] = useState<Filter>({});
  const [interval, setInterval] = useState("day");
  const list = usePagedList<AdminSignup>(["admin", "signups"], "/api/admin/signups", filter);
  const counts = useSignupCounts(filter, interval);
  const csv = useCsvExport(() => downloadCsv("signups", filter), adminErrorMessage);
  const set = (key: keyof Filters) => (value: string) => setDraft((current) => ({ ...current, [key]: value }));

  function apply(event: FormEvent) {
    event.preventDefault();
    setFilter({ ...draft });
  }

  return (
    <section aria-labelledby="signups-title">
      <SectionHeader
        id="signups-title"
        title="Early access"
        description="Everyone who asked for early access, newest first."
        actions={csv.button}
      />
      {csv.notice}
      <form
        aria-label="Filter signups"
        onSubmit={apply}
        className="mt-6 grid gap-3 sm:grid-cols-2 lg:grid-cols-4 xl:grid-cols-8"
      >
        <Field label="Search" className="sm:col-span-2">
          {(id) => (
            <input
              id={id}
              type="search"
              placeholder="Email, name or company"
              className={inputClass}
              value={draft.q}
              onChange={(event) => set("q")(event.target.value)}
            />
          )}
        </Field>
        <Select label="Role" value={draft.role} options={ROLE_OPTIONS} onChange={set("role")} />
        <Select label="Platform" value={draft.platform} options={PLATFORM_VALUES} onChange={set("platform")} />
        <Select
          label="AI experience"
          value={draft.experience}
          options={AI_EXPERIENCE_VALUES}
          onChange={set("experience")}
        />
        <Select label="Interest" value={draft.interest} options={INTEREST_OPTIONS} onChange={set("interest")} />
        <DateField label="From" value={draft.from} onChange={set("from")} />
        <DateField label="To" value={draft.to} onChange={set("to")} />
        <FilterActions
          className="sm:col-span-2 lg:col-span-4 xl:col-span-8"
          onClear={() => {
            setDraft(EMPTY);
            setFilter({});
          }}
        />
      </form>

      <div className="mt-6 grid gap-3 sm:grid-cols-[minmax(0,1fr)_10rem] sm:items-start">
        {counts.data ? (
          <SignupChart counts={counts.data} />
        ) : counts.isError ? (
          <ErrorNotice message={adminErrorMessage(counts.error)} />
        ) : (
          <Loading label="Loading counts…" />
        )}
        <Field label="Chart by">
          {(id) => (
            <select
              id={id}
              className={inputClass}
              value={interval}
              onChange={(event) => setInterval(event.target.value)}
            >
              <option value="day">day</option>
              <option value="week">week</option>
              <option value="month">month</option>
            </select>
          )}
        </Field>
      </div>

      <PagedTable
        list={list}
        label="Signups"
        loadingLabel="Loading signups…"
        empty="No signups match these filters."
        columns={["Email", "Name", "Role", "Platform", "Experience", "Interests", "Signed up"]}
        row={(row) => (
          <tr key={row.id}>
            <td className={`${tdClass} whitespace-nowrap font-medium`}>{row.email}</td>
            <td className={tdClass}>
              {row.name}
              {row.company && <span className="block text-xs text-fg-muted">{row.company}</span>}
            </td>
            <td className={tdClass}>{row.role}</td>
            <td className={tdClass}>{shortLabel(row.platform)}</td>
            <td className={tdClass}>{shortLabel(row.ai_experience)}</td>
            <td className={`${tdClass} text-xs`}>{row.interests || "—"}</td>
            <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(row.created_at)}</td>
          </tr>
        )}
      />
    </section>
  );
}
