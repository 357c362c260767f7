/** Customers: search by email or name (keyset pages); a customer's page opens from the list. */
import { type FormEvent, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { buttonClass } from "../../components/button";
import { type AdminCustomer, type Filter, usePagedList } from "./api";
import { CustomerDetailView } from "./customer-detail";
import { Field, formatDateTime, inputClass, PagedTable, SectionHeader, tdClass } from "./ui";

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
      <PagedTable
        list={list}
        label="Customers"
        loadingLabel="Loading customers…"
        empty="No customers match."
        columns={["Name", "Email", "Joined", "Last sign-in"]}
        row={(row) => (
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
        )}
      />
    </section>
  );
}
