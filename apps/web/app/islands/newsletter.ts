/**
 * The Stay Updated box: its React island (the form's states and messages) is fetched at the first sign of intent
 * (pointer over the box, focus, touch) and hydrates the box in place. A submit that comes first waits for it.
 */
import { island, islandsNamed } from "./runtime";

island("newsletter", () => {
  for (const box of islandsNamed("newsletter")) {
    let hydrated: Promise<void> | null = null;
    const hydrate = () => {
      hydrated ??= import("./react/newsletter").then(
        (module) => module.hydrate(box),
        (error: unknown) => {
          hydrated = null;
          throw error;
        },
      );
      return hydrated;
    };
    const onIntent = () => void hydrate().catch(() => undefined);
    for (const type of ["pointerover", "focusin", "touchstart"]) {
      box.addEventListener(type, onIntent, { once: true, passive: true });
    }
    box.addEventListener("submit", (event) => {
      if (box.dataset.hydrated) return;
      event.preventDefault();
      const form = event.target as HTMLFormElement;
      hydrate().then(
        () => form.isConnected && form.requestSubmit(),
        () => undefined,
      );
    });
  }
});
