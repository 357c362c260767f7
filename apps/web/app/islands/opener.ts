/**
 * Buttons that open a dialog (`data-opens="signup" | "video" | "search"`): the dialog is a React island (rendered by
 * Preact, decision 0050), imported on intent (pointer over the button, focus, first touch) and mounted on the click.
 * Before any intent, when the browser is idle after the load, its files are modulepreloaded, one per idle period:
 * fetched and compiled, not run, so a tap waits on neither the network nor a compile, and a reader who never taps
 * runs none of it (running them at idle cost a phone one long task of ~35 ms, 4× that at bench:web's throttle).
 * What it fetches stays within the page's 30 KB budget (bench:web, the build test).
 */
import { island } from "./runtime";

interface DialogModule {
  open(opener: HTMLElement | null): void;
}

const DIALOGS: Record<string, () => Promise<DialogModule>> = {
  signup: () => import("./react/signup"),
  video: () => import("./react/video"),
  search: () => import("./react/search"),
};

const loading = new Map<string, Promise<DialogModule>>();

/** Fetches a dialog's island once; a failed fetch is forgotten, so the next intent tries again. */
export function loadDialog(name: string): Promise<DialogModule> {
  const load = DIALOGS[name];
  if (!load) return Promise.reject(new Error(`no dialog named ${name}`));
  let module = loading.get(name);
  if (!module) {
    module = load();
    loading.set(name, module);
    module.catch(() => loading.delete(name));
  }
  return module;
}

const UNAVAILABLE = "This could not be loaded. Check your connection, then try again.";

function sayUnavailable(opener: HTMLElement | null) {
  if (!opener || opener.nextElementSibling?.hasAttribute("data-opener-error")) return;
  const message = document.createElement("p");
  message.setAttribute("role", "alert");
  message.dataset.openerError = "";
  message.className = "mt-2 w-full text-sm text-red-700 dark:text-red-300";
  message.textContent = UNAVAILABLE;
  opener.after(message);
}

export async function openDialog(name: string, opener: HTMLElement | null): Promise<void> {
  try {
    (await loadDialog(name)).open(opener);
    opener?.nextElementSibling?.hasAttribute("data-opener-error") && opener.nextElementSibling.remove();
  } catch (error) {
    console.error(`The ${name} dialog could not be loaded.`, error);
    sayUnavailable(opener);
  }
}

const IDLE_TIMEOUT_MS = 2_000;
const whenIdle = (task: () => void) =>
  typeof requestIdleCallback === "function"
    ? requestIdleCallback(task, { timeout: IDLE_TIMEOUT_MS })
    : setTimeout(task, 0);

/** Runs `task` once the page has loaded and the browser has a moment with nothing to do. */
function whenIdleAfterLoad(task: () => void) {
  if (document.readyState === "complete") whenIdle(task);
  else addEventListener("load", () => whenIdle(task), { once: true });
}

/** The files of this page's dialogs, as the build listed them in #islands (scripts/add-islands.mjs). */
function dialogFiles(): string[] {
  try {
    const list = JSON.parse(document.getElementById("islands")?.textContent ?? "{}") as { dialogs?: unknown };
    return Array.isArray(list.dialogs) ? list.dialogs.filter((file): file is string => typeof file === "string") : [];
  } catch {
    return [];
  }
}

/** Modulepreloads the files one per idle period (each request costs a slow phone's main thread a few ms). */
function preloadWhenIdle(files: string[]) {
  const next = () => {
    const file = files.shift();
    if (!file) return;
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = file;
    document.head.append(link);
    whenIdle(next);
  };
  next();
}

const openerOf = (target: EventTarget | null) =>
  target instanceof Element ? target.closest<HTMLElement>("[data-opens]") : null;

island("opener", () => {
  const prefetch = (event: Event) => {
    const name = openerOf(event.target)?.dataset.opens;
    if (name) loadDialog(name).catch(() => undefined);
  };
  for (const type of ["pointerover", "focusin", "touchstart"]) {
    document.addEventListener(type, prefetch, { capture: true, passive: true });
  }
  whenIdleAfterLoad(() => preloadWhenIdle(dialogFiles()));
  document.addEventListener("click", (event) => {
    const opener = openerOf(event.target);
    const name = opener?.dataset.opens;
    if (!opener || !name) return;
    event.preventDefault();
    void openDialog(name, opener);
  });
});
