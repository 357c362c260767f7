import { useEffect, useLayoutEffect, useRef } from "react";

/**
 * The native dialog returns focus to what was focused before showModal(). When a dialog is swapped for another
 * one as it opens (a loading dialog for the real one) or is mounted on the tap that opens it (an island), that
 * return goes to <body>: remember the opener ourselves and restore it when nothing else took focus.
 */
export function useRestoreFocus(open: boolean, fallbackOpener?: HTMLElement | null) {
  const opener = useRef<HTMLElement | null>(null);
  // Layout effect: runs before the dialog's showModal() (a passive effect) moves focus into it.
  useLayoutEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    if (active instanceof HTMLElement && active !== document.body && !active.closest("dialog")) opener.current = active;
    else opener.current = fallbackOpener ?? null;
  }, [open, fallbackOpener]);
  // Passive effect: runs after the dialog's close() and the browser's own focus return.
  useEffect(() => {
    if (open) return;
    const target = opener.current;
    opener.current = null;
    if (target?.isConnected && (document.activeElement === null || document.activeElement === document.body)) {
      target.focus();
    }
  }, [open]);
}
