import { COMMUNITY_URL } from "@flotilla/contracts/brand";
import type { License } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { PLANS, type Plan, type TierId } from "@flotilla/contracts/plans";
import { LifeBuoy, Lock, Zap } from "lucide-react";
import { useEffect } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";
import { licenseErrorMessage, useCreateLicense } from "./api";
import { PlanOption } from "./plan-option";

/** The plans a customer can pick from in the dialog (spec: free and plus). */
const DIALOG_TIERS: readonly TierId[] = ["free", "plus"];
const DIALOG_PLANS = PLANS.filter((plan) => DIALOG_TIERS.includes(plan.tier));

const NOTES: readonly { Icon: typeof Zap; text: string; href?: string }[] = [
  { Icon: Zap, text: "Instant activation" },
  { Icon: Lock, text: "Secure and encrypted" },
  // Spec's words; the link says where that support is (the About page's Community section lists the channels).
  { Icon: LifeBuoy, text: "Community support", href: COMMUNITY_URL },
] as const;

export interface CreateLicenseDialogProps {
  open: boolean;
  onClose: () => void;
  /** The new license, once the server created it; the dialog closes itself right after. */
  onCreated: (license: License) => void;
}

/**
 * Spec section 2, "Create Your License dialog": idle, creating, success (closes) or failure (red banner). A
 * double-click sends one request (usePortalMutation), so a success is never followed by a duplicate's refusal.
 */
export function CreateLicenseDialog({ open, onClose, onCreated }: CreateLicenseDialogProps) {
  const creation = useCreateLicense();
  const { reset } = creation;
  const creating = creation.isPending;

  // Every opening starts from idle: no error or result of a previous attempt.
  useEffect(() => {
    if (open) reset();
  }, [open, reset]);

  function choose(plan: Plan) {
    creation.mutate(plan.tier, {
      onSuccess: (license) => {
        onCreated(license);
        onClose();
      },
    });
  }

  const error = creation.isError ? licenseErrorMessage(creation.error) : null;

  return (
    <Modal open={open} onClose={onClose} title="Create Your License" closeDisabled={creating} className="max-w-3xl">
      <p className="mt-1 text-sm text-fg-muted">Choose a plan to get started. You can have one license per account.</p>

      {error && (
        <div className="mt-5">
          {/* One banner, never two (issue 34; decision 0055 on the spec's "red banner, also amber banner"). */}
          <Banner tone="error" title={error === MESSAGES.duplicateLicense ? "One license per customer" : undefined}>
            {error}
          </Banner>
        </div>
      )}

      <ul className="mt-6 grid gap-4 sm:grid-cols-2">
        {DIALOG_PLANS.map((plan) => (
          <PlanOption
            key={plan.tier}
            plan={plan}
            busy={creating}
            creating={creating && creation.variables === plan.tier}
            onChoose={choose}
          />
        ))}
      </ul>

      <ul className="mt-6 flex flex-wrap justify-center gap-x-6 gap-y-2 border-t border-border pt-5 text-sm text-fg-muted">
        {NOTES.map(({ Icon, text, href }) => (
          <li key={text} className="flex items-center gap-2">
            <Icon className="size-4 text-emerald-600 dark:text-emerald-400" aria-hidden="true" />
            {href ? (
              <a href={href} className="underline underline-offset-2 hover:text-fg">
                {text}
              </a>
            ) : (
              text
            )}
          </li>
        ))}
      </ul>

      <div className="mt-6 flex justify-center">
        <button type="button" onClick={onClose} disabled={creating} className={buttonClass("ghost", "md")}>
          Maybe later
        </button>
      </div>
    </Modal>
  );
}
