/** Newsletter subscribers: search by email, filter by status, keyset pages. */
import { SUBSCRIBER_STATUSES } from "@flotilla/contracts/admin";
import { type FormEvent, useState } from "react";
import { buttonClass } from "../../components/button";
import { type AdminSubscriber, adminErrorMessage, downloadCsv, type Filter, usePagedList } from "./api";
import { Field, formatDateTime, inputClass, PagedTable, SectionHeader, tdClass, useCsvExport } from "./ui";

const STATUS_CLASS: Record<AdminSubscriber["status"], string> = {
  confirmed: "text-emerald-700 dark:text-emerald-400",
  pending: "text-amber-700 dark:text-amber-400",
  unsubscribed: "text-fg-muted",
};

export function SubscribersSection() {
  const [q, setQ] = useState("");
  const [status, setStatus] = useState("");
  const [filter, setFilter] = useState<Filter>({});
  const list = usePagedList<AdminSubscriber>(["admin", "subscribers"], "/api/admin/subscribers", filter);
  const csv = useCsvExport(() => downloadCsv("subscribers", filter), adminErrorMessage);

  function apply(event: FormEvent) {
    event.preventDefault();
    setFilter({ q, status });
  }

  return (
    <section aria-labelledby="subscribers-title">
      <SectionHeader
        id="subscribers-title"
        title="Newsletter"
        description="Subscribers from the blog and from early-access signups. Only confirmed addresses get the newsletter."
        actions={csv.button}
      />
      {csv.notice}
      <form aria-label="Filter subscribers" onSubmit={apply} className="mt-6 flex flex-wrap items-end gap-3">
        <Field label="Email" className="w-full sm:w-72">
          {(id) => (
            <input
              id={id}
              type="search"
              className={inputClass}
              value={q}
              onChange={(event) => setQ(event.target.value)}
            />
          )}
        </Field>
        <Field label="Status" className="w-full sm:w-48">
          {(id) => (
            <select id={id} className={inputClass} value={status} onChange={(event) => setStatus(event.target.value)}>
              <option value="">Any</option>
              {SUBSCRIBER_STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" className={buttonClass("primary", "sm", "h-10")}>
          Apply filters
        </button>
      </form>
      <PagedTable
        list={list}
        label="Subscribers"
        loadingLabel="Loading subscribers…"
        empty="No subscribers match these filters."
        columns={["Email", "Status", "Source", "Subscribed", "Confirmed", "Unsubscribed"]}
        row={(row) => (
          <tr key={row.id}>
            <td className={`${tdClass} whitespace-nowrap font-medium`}>{row.email}</td>
            <td className={`${tdClass} font-medium ${STATUS_CLASS[row.status]}`}>{row.status}</td>
            <td className={tdClass}>{row.source}</td>
            <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(row.subscribed_at)}</td>
            <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(row.confirmed_at)}</td>
            <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(row.unsubscribed_at)}</td>
          </tr>
        )}
      />
    </section>
  );
}
