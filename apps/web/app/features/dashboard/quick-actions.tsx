import { MESSAGES } from "@flotilla/contracts/messages";
import { CreditCard, FileText, Plus, Settings } from "lucide-react";
import { useId } from "react";
import { ComingSoonNotice, useComingSoon } from "../../lib/coming-soon";

const SOON = [
  { label: "Download Invoices", Icon: FileText },
  { label: "Billing Settings", Icon: CreditCard },
  { label: "Account Settings", Icon: Settings },
] as const;

const ACTION_CLASS =
  "flex w-full items-center gap-3 rounded-lg px-3 py-2.5 text-left text-sm font-medium transition-colors hover:bg-bg-subtle";

/** Create New License opens the create dialog; the rest are coming soon. */
export function QuickActions({ onCreateLicense, hasLicense }: { onCreateLicense: () => void; hasLicense: boolean }) {
  const comingSoon = useComingSoon();
  const noteId = useId();
  return (
    <section aria-labelledby="quick-actions-title" className="rounded-2xl border border-border bg-bg-elevated p-5">
      <h2 id="quick-actions-title" className="font-semibold">
        Quick Actions
      </h2>
      <ul className="mt-3 space-y-1">
        <li>
          {/* One license per account: with it, this can only fail (and invites a double submit), so it is off. */}
          <button
            type="button"
            onClick={onCreateLicense}
            disabled={hasLicense}
            title={hasLicense ? MESSAGES.oneLicensePerAccount : undefined}
            className={`${ACTION_CLASS} disabled:cursor-not-allowed disabled:text-fg-muted disabled:hover:bg-transparent`}
            aria-describedby={hasLicense ? noteId : undefined}
          >
            <Plus className="size-4 text-sky-600 dark:text-sky-400" aria-hidden="true" />
            Create New License
          </button>
          {/* Said beside the disabled button; the server's duplicate message still answers a request made anyway. */}
          {hasLicense && (
            <p id={noteId} className="px-3 pb-1 pl-10 text-xs text-fg-muted">
              {MESSAGES.oneLicensePerAccount}
            </p>
          )}
        </li>
        {SOON.map(({ label, Icon }) => (
          <li key={label}>
            <button type="button" onClick={() => comingSoon.announce(label)} className={ACTION_CLASS}>
              <Icon className="size-4 text-fg-muted" aria-hidden="true" />
              {label}
            </button>
          </li>
        ))}
      </ul>
      <div className="mt-2 px-3 empty:hidden">
        <ComingSoonNotice notice={comingSoon.notice} />
      </div>
    </section>
  );
}
