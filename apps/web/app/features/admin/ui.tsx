/** Small building blocks shared by the console's sections: fields, tables, "Load more", confirmations. */
import { Download, Loader2, type LucideIcon } from "lucide-react";
import { type ReactNode, useId, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";
import { adminErrorMessage } from "./api";

export const inputClass =
  "h-10 w-full rounded-lg border border-border bg-bg px-3 text-sm text-fg shadow-xs outline-none transition-colors placeholder:text-fg-muted/70 focus:border-sky-500 focus:ring-3 focus:ring-sky-500/20 aria-invalid:border-red-500 disabled:opacity-60";

export const tableClass = "w-full min-w-[40rem] border-collapse text-left text-sm";
export const thClass = "border-b border-border px-3 py-2 text-xs font-semibold uppercase tracking-wide text-fg-muted";
export const tdClass = "border-b border-border px-3 py-2 align-top";

/** A labelled control; `children` receives the id to put on the control. */
export function Field({
  label,
  className = "",
  children,
}: {
  label: string;
  className?: string;
  children: (id: string) => ReactNode;
}) {
  const id = useId();
  return (
    <div className={`flex min-w-0 flex-col gap-1 ${className}`}>
      <label htmlFor={id} className="text-xs font-medium text-fg-muted">
        {label}
      </label>
      {children(id)}
    </div>
  );
}

export function SectionHeader({
  id,
  title,
  description,
  actions,
}: {
  id: string;
  title: string;
  description: string;
  actions?: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
      <div>
        <h2 id={id} className="text-xl font-semibold tracking-tight">
          {title}
        </h2>
        <p className="mt-1 text-sm text-fg-muted">{description}</p>
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  );
}

/**
 * A scrollable frame for wide tables: focusable so keyboard users can scroll it. Positioned, so that what sits
 * absolutely inside (a column header kept for screen readers, `sr-only`) is clipped with the table instead of
 * widening the page on a phone.
 */
export function TableFrame({ label, children }: { label: string; children: ReactNode }) {
  return (
    <section
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
      tabIndex={0}
      aria-label={`${label} (scrollable)`}
      className="relative mt-4 overflow-x-auto rounded-xl border border-border bg-bg-elevated"
    >
      {children}
    </section>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <p role="status" className="flex items-center gap-2 py-6 text-sm text-fg-muted">
      <Loader2 className="size-4 animate-spin" aria-hidden="true" />
      {label}
    </p>
  );
}

export function ErrorNotice({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="mt-4 space-y-3">
      <Banner tone="error">{message}</Banner>
      {onRetry && (
        <button type="button" className={buttonClass("secondary", "sm")} onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Follows the API's next cursor; hidden on the last page. */
export function LoadMore({
  hasMore,
  loading,
  onLoad,
  shown,
}: {
  hasMore: boolean;
  loading: boolean;
  onLoad: () => void;
  shown: number;
}) {
  return (
    <div className="mt-4 flex flex-wrap items-center gap-3 text-sm text-fg-muted">
      <span>
        {shown.toLocaleString("en-US")} shown{hasMore ? "" : shown > 0 ? " (all)" : ""}
      </span>
      {hasMore && (
        <button type="button" className={buttonClass("secondary", "sm")} onClick={onLoad} disabled={loading}>
          {loading && <Loader2 className="size-4 animate-spin" aria-hidden="true" />}
          Load more
        </button>
      )}
    </div>
  );
}

/** What `PagedTable` reads of `usePagedList`'s answer (TanStack Query's infinite query). */
export interface PagedListState<T> {
  data?: { pages: { data: T[] }[] };
  isPending: boolean;
  isError: boolean;
  error: unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  refetch: () => unknown;
  fetchNextPage: () => unknown;
}

/**
 * A paged console list in its four states: loading, an error with "Try again", an empty message, or the table
 * followed by "Load more". `row` renders one item's <tr>; `actions` adds a last column headed for screen readers.
 */
export function PagedTable<T>({
  list,
  label,
  loadingLabel,
  empty,
  emptyClassName = "mt-6",
  tableClassName = tableClass,
  columns,
  actions = false,
  row,
}: {
  list: PagedListState<T>;
  label: string;
  loadingLabel: string;
  empty: string;
  emptyClassName?: string;
  tableClassName?: string;
  columns: string[];
  actions?: boolean;
  row: (item: T) => ReactNode;
}) {
  if (list.isPending) return <Loading label={loadingLabel} />;
  if (list.isError) return <ErrorNotice message={adminErrorMessage(list.error)} onRetry={() => void list.refetch()} />;
  const rows = list.data?.pages.flatMap((page) => page.data) ?? [];
  if (rows.length === 0) return <p className={`${emptyClassName} text-sm text-fg-muted`}>{empty}</p>;
  return (
    <>
      <TableFrame label={label}>
        <table className={tableClassName} aria-label={label}>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} className={thClass}>
                  {column}
                </th>
              ))}
              {actions && (
                <th className={thClass}>
                  <span className="sr-only">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>{rows.map(row)}</tbody>
        </table>
      </TableFrame>
      <LoadMore
        shown={rows.length}
        hasMore={list.hasNextPage}
        loading={list.isFetchingNextPage}
        onLoad={() => void list.fetchNextPage()}
      />
    </>
  );
}

/** A date input for a filter form ("From", "To"): the value is yyyy-mm-dd, or "" for none. */
export function DateField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Field label={label}>
      {(id) => (
        <input
          id={id}
          type="date"
          className={inputClass}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

/** "Apply filters" (the form's submit) and "Clear", at the end of a filter form's grid. */
export function FilterActions({ className, onClear }: { className: string; onClear: () => void }) {
  return (
    <div className={`flex items-end gap-2 ${className}`}>
      <button type="submit" className={buttonClass("primary", "sm")}>
        Apply filters
      </button>
      <button type="button" className={buttonClass("ghost", "sm")} onClick={onClear}>
        Clear
      </button>
    </div>
  );
}

/** A confirmation on the native <dialog> (focus moves in, Escape closes, focus returns to the opener). */
export function ConfirmDialog({
  open,
  title,
  confirmLabel,
  busy,
  error,
  onConfirm,
  onClose,
  children,
  tone = "primary",
}: {
  open: boolean;
  title: string;
  confirmLabel: string;
  /** "danger" for what cannot be undone or ends something for someone (delete, sign out everywhere). */
  tone?: "primary" | "danger";
  busy: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal open={open} onClose={onClose} title={title} closeDisabled={busy} className="max-w-md">
      <div className="mt-3 space-y-3 text-sm text-fg-muted">{children}</div>
      {error && (
        <div className="mt-4">
          <Banner tone="error">{error}</Banner>
        </div>
      )}
      <div className="mt-6 flex flex-wrap justify-end gap-2">
        <button type="button" className={buttonClass("ghost", "md")} onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" className={buttonClass(tone, "md")} onClick={onConfirm} disabled={busy}>
          {busy && <Loader2 className="size-4 animate-spin" aria-hidden="true" />}
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

/**
 * Every time the console shows, in one format: "Jan 2, 2026, 10:00 AM UTC", in the viewer's time zone and naming it,
 * so that a time compares with an app's logs or a customer's report without guessing (issue 25).
 */
export function formatDateTime(iso: string | null | undefined, fallback = "—"): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? fallback
    : date.toLocaleString("en-US", {
        year: "numeric",
        month: "short",
        day: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        timeZoneName: "short",
      });
}

/** "Export CSV" of the current filter, with its own progress and error (shown under the section header). */
export function useCsvExport(download: () => Promise<void>, errorMessage: (error: unknown) => string) {
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run() {
    setExporting(true);
    setError(null);
    try {
      await download();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setExporting(false);
    }
  }
  const button = (
    <button type="button" className={buttonClass("secondary", "sm")} onClick={run} disabled={exporting}>
      {exporting ? (
        <Loader2 className="size-4 animate-spin" aria-hidden="true" />
      ) : (
        <Download className="size-4" aria-hidden="true" />
      )}
      Export CSV
    </button>
  );
  const notice = error ? (
    <div className="mt-4">
      <Banner tone="error">{error}</Banner>
    </div>
  ) : null;
  return { button, notice };
}

/** A dialog form's Cancel and submit buttons; the submit shows a spinner and both wait while the request runs. */
export function FormActions({
  busy,
  onCancel,
  Icon,
  label,
  tone = "primary",
  disabled = false,
}: {
  busy: boolean;
  onCancel: () => void;
  Icon: LucideIcon;
  label: string;
  tone?: "primary" | "danger";
  /** The action waits for something the form asks for (e.g. a typed confirmation). */
  disabled?: boolean;
}) {
  return (
    <div className="flex flex-wrap justify-end gap-2 pt-2">
      <button type="button" className={buttonClass("ghost", "md")} onClick={onCancel} disabled={busy}>
        Cancel
      </button>
      <button type="submit" className={buttonClass(tone, "md")} disabled={busy || disabled}>
        {busy ? (
          <Loader2 className="size-4 animate-spin" aria-hidden="true" />
        ) : (
          <Icon className="size-4" aria-hidden="true" />
        )}
        {label}
      </button>
    </div>
  );
}
