/**
 * The account end of the top bar and of the mobile menu on a prerendered page. The page is built signed out
 * (Get Started); each slot also holds, in a <template> rendered by the same React components at build time, the
 * signed-in markup. A stored token is validated once; when it is good, the template replaces Get Started and is
 * filled in with the user's name, email and picture; the console's link stays only for an admin. Logout works from
 * here, as in the portal's user menu.
 */
import { SIGNED_OUT_EVERYWHERE_PATH } from "@flotilla/contracts/navigation";
import { API_TIMEOUT_MS } from "@flotilla/contracts/timings";
import type { AuthUser } from "../lib/auth";
import { clearStoredToken, noteSignedOutEverywhere, readStoredToken } from "../lib/token-storage";
import { controlledBy, disclosure } from "./disclosure";

const LOGIN_PATH = "/login";

function authorized(token: string, method: "GET" | "POST"): RequestInit {
  return {
    method,
    headers: { Accept: "application/json", Authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(API_TIMEOUT_MS),
  };
}

/** The token's user; null when the server says the token is no good; undefined when it could not say. */
async function validate(token: string): Promise<AuthUser | null | undefined> {
  try {
    const response = await fetch("/api/auth/validate", authorized(token, "GET"));
    if (response.status === 401 || response.status === 403) return null;
    if (!response.ok) return undefined;
    const body = (await response.json()) as { success?: boolean; user?: AuthUser };
    return body.success && body.user ? body.user : null;
  } catch {
    return undefined;
  }
}

function avatarImage(user: AuthUser, icon: Element): HTMLImageElement {
  const img = document.createElement("img");
  img.alt = "";
  img.referrerPolicy = "no-referrer";
  img.className = icon.getAttribute("data-img-class") ?? "";
  img.src = user.avatar_url ?? "";
  img.addEventListener("error", () => img.replaceWith(icon), { once: true });
  return img;
}

function fill(fragment: DocumentFragment, user: AuthUser) {
  for (const field of fragment.querySelectorAll<HTMLElement>("[data-account-field]")) {
    field.textContent = field.dataset.accountField === "email" ? user.email : user.name;
  }
  for (const labelled of fragment.querySelectorAll<HTMLElement>("[data-account-label]")) {
    labelled.setAttribute("aria-label", `${labelled.dataset.accountLabel} ${user.name}`);
  }
  if (!user.is_admin) for (const item of fragment.querySelectorAll("[data-account-admin]")) item.remove();
  if (user.avatar_url) {
    for (const icon of fragment.querySelectorAll("[data-account-avatar]")) icon.replaceWith(avatarImage(user, icon));
  }
}

async function logout() {
  const token = readStoredToken();
  clearStoredToken();
  if (token) {
    try {
      await fetch("/api/auth/logout", authorized(token, "POST"));
    } catch {
      // Best effort, as in the portal: the token is gone from this browser either way.
    }
  }
  window.location.assign(LOGIN_PATH);
}

/** Unlike logout, this one must reach the server: other sessions only end there. */
async function logoutEverywhere(alert: HTMLElement | null) {
  const token = readStoredToken();
  if (alert) alert.textContent = "";
  if (token) {
    try {
      const response = await fetch("/api/auth/logout-all", authorized(token, "POST"));
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
    } catch {
      if (alert) alert.textContent = alert.dataset.message ?? "";
      return;
    }
  }
  noteSignedOutEverywhere();
  clearStoredToken();
  window.location.assign(SIGNED_OUT_EVERYWHERE_PATH);
}

/** Sign out everywhere asks first, in place (the confirmation is in the template, hidden). */
function wireSignOutEverywhere(fragment: DocumentFragment, alert: HTMLElement | null) {
  const ask = fragment.querySelector<HTMLElement>("[data-account-action='logout-everywhere']");
  const confirm = fragment.querySelector<HTMLElement>("[data-account-confirm]");
  const yes = fragment.querySelector<HTMLElement>("[data-account-action='logout-everywhere-confirm']");
  const cancel = fragment.querySelector<HTMLElement>("[data-account-action='logout-everywhere-cancel']");
  if (!ask || !confirm) return;
  const asking = (open: boolean) => {
    confirm.hidden = !open;
    ask.setAttribute("aria-expanded", String(open));
  };
  ask.addEventListener("click", () => {
    asking(true);
    yes?.focus();
  });
  cancel?.addEventListener("click", () => {
    asking(false);
    ask.focus();
  });
  yes?.addEventListener("click", () => logoutEverywhere(alert));
}

function signIn(slot: HTMLElement, user: AuthUser) {
  const template = slot.querySelector<HTMLTemplateElement>("template[data-account-template]");
  if (!template) return;
  const fragment = template.content.cloneNode(true) as DocumentFragment;
  fill(fragment, user);
  const alert = fragment.querySelector<HTMLElement>("[data-account-error]");
  fragment.querySelector("[data-account-action='logout']")?.addEventListener("click", logout);
  wireSignOutEverywhere(fragment, alert);
  const menu = fragment.querySelector<HTMLElement>("[data-account-menu]");
  slot.replaceChildren(fragment);
  const button = menu?.querySelector<HTMLElement>("button[aria-controls]") ?? null;
  const panel = controlledBy(button);
  if (menu && button && panel) disclosure(button, panel, menu);
}

export async function startAccount(): Promise<void> {
  const slots = [...document.querySelectorAll<HTMLElement>("[data-account-slot]")];
  const token = readStoredToken();
  if (!token || slots.length === 0) return;
  const user = await validate(token);
  if (user === null && readStoredToken() === token) clearStoredToken();
  if (!user) return;
  for (const slot of slots) signIn(slot, user);
}
