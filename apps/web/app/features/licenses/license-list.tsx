import type { License } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { KeySquare, Plus } from "lucide-react";
import { useId } from "react";
import { buttonClass } from "../../components/button";
import { LicenseCard } from "./license-card";

interface LicenseListProps {
  licenses: readonly License[];
  onCreate: () => void;
  /** Called after something changed under a license (a device removed). */
  onChanged?: () => void;
  /** The license just created: its card takes focus when it appears. */
  focusLicenseId?: string | null;
}

/** 'Your Licenses': every license as a card, or the empty state inviting a free one. */
export function LicenseList({ licenses, onCreate, onChanged, focusLicenseId = null }: LicenseListProps) {
  const noteId = useId();
  const hasLicense = licenses.length > 0;
  return (
    <section aria-labelledby="licenses-title" className="min-w-0">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="licenses-title" className="text-lg font-semibold">
          Your Licenses
        </h2>
        <div className="flex items-center gap-3">
          {/* Said beside the disabled button; the server's duplicate message still answers a request made anyway. */}
          {hasLicense && (
            <p id={noteId} className="text-xs text-fg-muted">
              {MESSAGES.oneLicensePerAccount}
            </p>
          )}
          {/* One license per account: with it, this can only fail (and invites a double submit), so it is off. */}
          <button
            type="button"
            onClick={onCreate}
            disabled={hasLicense}
            title={hasLicense ? MESSAGES.oneLicensePerAccount : undefined}
            className={buttonClass(hasLicense ? "secondary" : "primary", "sm")}
            aria-describedby={hasLicense ? noteId : undefined}
          >
            <Plus className="size-4" aria-hidden="true" />
            Create License
          </button>
        </div>
      </div>
      {licenses.length === 0 ? (
        <div className="mt-4 rounded-2xl border border-dashed border-border bg-bg-elevated px-6 py-12 text-center">
          <KeySquare className="mx-auto size-10 text-fg-muted" aria-hidden="true" />
          <h3 className="mt-4 font-semibold">No licenses yet</h3>
          <p className="mt-1 text-sm text-fg-muted">Get started by purchasing your first license</p>
          <button type="button" onClick={onCreate} className={buttonClass("primary", "md", "mt-6")}>
            Create Free License
          </button>
        </div>
      ) : (
        <ul className="mt-4 space-y-6">
          {licenses.map((license) => (
            <li key={license.id}>
              <LicenseCard license={license} onChanged={onChanged} focusOnMount={license.id === focusLicenseId} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
