import "@testing-library/jest-dom/vitest";
import { cleanup, configure } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => cleanup());

// findBy/waitFor wait for what a screen does after a promise, never for time to pass: their limit catches a hang, and
// a loaded machine (another build beside this one) must not turn the default 1 s into a failure (decision 0054).
configure({ asyncUtilTimeout: 10_000 });

/**
 * jsdom has <dialog> but not its methods. A small stand-in with the browser's observable behaviour:
 * showModal()/show() set `open`; close() removes it and fires `close`; Escape fires a cancelable
 * `cancel` at the top open dialog and closes it unless the handler prevented that.
 */
if (typeof HTMLDialogElement !== "undefined") {
  const proto = HTMLDialogElement.prototype;
  if (typeof proto.showModal !== "function") {
    proto.showModal = function showModal(this: HTMLDialogElement) {
      this.setAttribute("open", "");
    };
  }
  if (typeof proto.show !== "function") {
    proto.show = function show(this: HTMLDialogElement) {
      this.setAttribute("open", "");
    };
  }
  if (typeof proto.close !== "function") {
    proto.close = function close(this: HTMLDialogElement, returnValue?: string) {
      if (!this.hasAttribute("open")) return;
      this.removeAttribute("open");
      if (returnValue !== undefined) this.returnValue = returnValue;
      this.dispatchEvent(new Event("close"));
    };
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      const dialog = [...document.querySelectorAll("dialog[open]")].at(-1) as HTMLDialogElement | undefined;
      if (!dialog) return;
      if (dialog.dispatchEvent(new Event("cancel", { cancelable: true }))) dialog.close();
    });
  }
}
