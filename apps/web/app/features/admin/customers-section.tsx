/** Customers: search by email or name (keyset pages); a customer's page opens from the list. */
import { type FormEvent, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { buttonClass } from "../../components/button";
import { type AdminCustomer, adminErrorMessage, type Filter, usePagedList } from "./api";
import { CustomerDetailView } from "./customer-detail";
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

export function CustomersSection() {
  const [params] = useSearchParams();
  const customerId = params.get("customer");
  if (customerId) return <CustomerDetailView key={customerId} customerId={customerId} />;
  return <CustomerSearch />;
}

function CustomerSearch() {
  const [q, setQ] = useState("");
  const [filter, setFilter] = useState<Filter>({});
  const list = usePagedList<AdminCustomer>(["admin", "customers"], "/api/admin/customers", filter);
  const rows = list.data?.pages.flatMap((page) => page.data) ?? [];

  function search(event: FormEvent) {
    event.preventDefault();
    setFilter({ q });
  }

  return (
    <section aria-labelledby="customers-title">
      <SectionHeader
        id="customers-title"
        title="Customers"
        description="Everyone who signed in. Open a customer for their licenses, devices and sessions."
      />
      <form aria-label="Find customers" onSubmit={search} className="mt-6 flex flex-wrap items-end gap-3">
        <Field label="Email or name" className="w-full sm:w-80">
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
        <button type="submit" className={buttonClass("primary", "sm", "h-10")}>
          Search
        </button>
      </form>
      {list.isPending ? (
        <Loading label="Loading customers…" />
      ) : list.isError ? (
        <ErrorNotice message={adminErrorMessage(list.error)} onRetry={() => void list.refetch()} />
      ) : rows.length === 0 ? (
        <p className="mt-6 text-sm text-fg-muted">No customers match.</p>
      ) : (
        <>
          <TableFrame label="Customers">
            <table className={tableClass} aria-label="Customers">
              <thead>
                <tr>
                  <th className={thClass}>Name</th>
                  <th className={thClass}>Email</th>
                  <th className={thClass}>Joined</th>
                  <th className={thClass}>Last sign-in</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.id}>
                    <td className={tdClass}>
                      <Link
                        to={`?tab=customers&customer=${encodeURIComponent(row.id)}`}
                        className="font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-300"
                      >
                        {row.name || row.email}
                      </Link>
                    </td>
                    <td className={`${tdClass} whitespace-nowrap`}>{row.email}</td>
                    <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(row.created_at)}</td>
                    <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(row.last_sign_in_at, "Never")}</td>
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
