/** The top bar on every prerendered page: theme toggle, mobile menu, Docs menu and the account area. */
import { applyTheme, currentTheme } from "../lib/theme";
import { startAccount } from "./account";
import { controlledBy, disclosure } from "./disclosure";
import { island } from "./runtime";

function themeToggle(button: HTMLElement) {
  const label = () => {
    const text = `Switch to ${currentTheme() === "dark" ? "light" : "dark"} theme`;
    button.setAttribute("aria-label", text);
    button.title = text;
  };
  label();
  button.addEventListener("click", () => {
    applyTheme(currentTheme() === "dark" ? "light" : "dark");
    label();
  });
}

/** Opened and closed like the Docs menu (Escape, a press outside the header); its label says what a press does. */
function mobileMenu(button: HTMLElement, header: HTMLElement) {
  const panel = controlledBy(button);
  if (!panel) return;
  disclosure(button, panel, header, (open) => button.setAttribute("aria-label", open ? "Close menu" : "Open menu"));
}

island("header", () => {
  const header = document.querySelector<HTMLElement>('[data-island="header"]');
  if (!header) return;
  for (const button of header.querySelectorAll<HTMLElement>("[data-theme-toggle]")) themeToggle(button);
  const menuButton = header.querySelector<HTMLElement>("[data-mobile-menu-button]");
  if (menuButton) mobileMenu(menuButton, header);
  const docs = header.querySelector<HTMLElement>("[data-docs-menu]");
  const docsButton = docs?.querySelector<HTMLElement>("button[aria-controls]") ?? null;
  const docsPanel = controlledBy(docsButton);
  if (docs && docsButton && docsPanel) disclosure(docsButton, docsPanel, docs);
  void startAccount();
});
