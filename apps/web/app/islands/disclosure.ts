/**
 * A button that shows and hides a panel (aria-expanded + hidden), closed by Escape (focus back on the button) and by
 * a press outside `container`: the Docs menu and the user menu, as React's useDismiss does in the portal.
 */
export interface Disclosure {
  set(open: boolean): void;
}

export function disclosure(
  button: HTMLElement,
  panel: HTMLElement,
  container: HTMLElement,
  onChange?: (open: boolean) => void,
): Disclosure {
  const onKey = (event: KeyboardEvent) => {
    if (event.key !== "Escape") return;
    set(false);
    button.focus();
  };
  const onPointer = (event: PointerEvent) => {
    if (!container.contains(event.target as Node)) set(false);
  };
  function set(open: boolean) {
    button.setAttribute("aria-expanded", String(open));
    panel.hidden = !open;
    onChange?.(open);
    if (open) {
      document.addEventListener("keydown", onKey);
      document.addEventListener("pointerdown", onPointer);
    } else {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    }
  }
  button.addEventListener("click", () => set(button.getAttribute("aria-expanded") !== "true"));
  return { set };
}

/** The panel a button controls (aria-controls), if any. */
export function controlledBy(button: HTMLElement | null): HTMLElement | null {
  const id = button?.getAttribute("aria-controls");
  return id ? document.getElementById(id) : null;
}
