import { X } from "lucide-react";
import { type ReactNode, useEffect, useId, useRef } from "react";

interface ModalProps {
  open: boolean;
  onClose: () => void;
  title: string;
  /** Visually hide the title (it still names the dialog for assistive tech). */
  hideTitle?: boolean;
  /** While true, X, backdrop and Escape do nothing (e.g. while a form is submitting). */
  closeDisabled?: boolean;
  className?: string;
  children: ReactNode;
}

/**
 * A modal on the native <dialog>: showModal() makes the rest of the page inert, Escape is built in,
 * and focus returns to the opener on close. We add scroll lock, backdrop click and a close button.
 */
export function Modal({ open, onClose, title, hideTitle, closeDisabled, className = "", children }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const root = document.documentElement;
    const previous = root.style.overflow;
    root.style.overflow = "hidden";
    return () => {
      root.style.overflow = previous;
    };
  }, [open]);

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the click is on the backdrop only; Escape is the dialog's own keyboard close
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!closeDisabled) onClose();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget && !closeDisabled) onClose();
      }}
      className={`m-auto max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] overflow-y-auto rounded-2xl border border-border bg-bg-elevated p-0 text-fg shadow-2xl backdrop:bg-slate-950/70 backdrop:backdrop-blur-sm ${className}`}
    >
      {open && (
        <div className="relative p-6 sm:p-8">
          <button
            type="button"
            onClick={onClose}
            disabled={closeDisabled}
            className="absolute right-3 top-3 inline-flex size-9 items-center justify-center rounded-lg text-fg-muted hover:bg-bg-subtle hover:text-fg disabled:opacity-40"
            aria-label="Close"
          >
            <X className="size-5" aria-hidden="true" />
          </button>
          <h2 id={titleId} className={hideTitle ? "sr-only" : "pr-10 text-xl font-semibold tracking-tight"}>
            {title}
          </h2>
          {children}
        </div>
      )}
    </dialog>
  );
}
