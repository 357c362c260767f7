/**
 * The signup modal's entry point for the site layout. The form and what it needs (the contracts'
 * signup schema and zod) live in a separate chunk fetched on first open: public pages ship none of it.
 * Keep this file free of static imports from ./signup-dialog, ./api, ./form and @flotilla/contracts/signup.
 */
import { lazy, Suspense, useState } from "react";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";
import { Spinner } from "../../components/spinner";
import { useRestoreFocus } from "../../components/use-restore-focus";
import type { SignupDialogProps } from "./signup-dialog";

const TITLE = "Get Early Access";

const SignupDialog = lazy(() =>
  import("./signup-dialog").then(
    (module) => ({ default: module.SignupDialog }),
    // A failed chunk download (offline, or a deploy replaced the file) must not take the page down.
    () => ({ default: SignupUnavailable }),
  ),
);

export function LazySignupDialog({ open, onClose }: SignupDialogProps) {
  // Mount (and so download) the dialog on first open only; keep it mounted afterwards so that its
  // 300 ms reset after close still runs.
  const [requested, setRequested] = useState(open);
  if (open && !requested) setRequested(true);
  useRestoreFocus(open);

  if (!requested) return null;
  return (
    <Suspense fallback={<SignupLoading open={open} onClose={onClose} />}>
      <SignupDialog open={open} onClose={onClose} />
    </Suspense>
  );
}

function SignupLoading({ open, onClose }: SignupDialogProps) {
  return (
    <Modal open={open} onClose={onClose} title={TITLE} className="max-w-xl">
      <p role="status" className="flex items-center justify-center gap-2 py-16 text-sm text-fg-muted">
        <Spinner />
        Loading the form…
      </p>
    </Modal>
  );
}

function SignupUnavailable({ open, onClose }: SignupDialogProps) {
  return (
    <Modal open={open} onClose={onClose} title={TITLE} className="max-w-xl">
      <div className="py-8 text-center">
        <p className="mt-4 text-fg-muted" role="alert">
          We couldn't load the signup form. Check your connection, then reload the page and try again.
        </p>
        <button type="button" className={buttonClass("primary", "md", "mt-6")} onClick={() => window.location.reload()}>
          Reload page
        </button>
      </div>
    </Modal>
  );
}
