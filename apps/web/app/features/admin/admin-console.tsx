/** The console's frame: title, who is signed in, and the sections as links (?tab=…), so each has an address. */
import { useLayoutEffect, useRef } from "react";
import { Link, useSearchParams } from "react-router";
import { ConnectionBadge, ConnectionNotice, useConnectionProblem } from "../portal/connection-status";
import { AdminsSection } from "./admins-section";
import { AuditSection } from "./audit-section";
import { BetaSection } from "./beta-section";
import { CustomersSection } from "./customers-section";
import { PrivacySection } from "./privacy-section";
import { ReleasesSection } from "./releases-section";
import { SignupsSection } from "./signups-section";
import { SubscribersSection } from "./subscribers-section";
import { WebhooksSection } from "./webhooks-section";

export const SECTIONS = [
  { id: "signups", label: "Early access", Component: SignupsSection },
  { id: "beta", label: "Beta testers", Component: BetaSection },
  { id: "subscribers", label: "Newsletter", Component: SubscribersSection },
  { id: "customers", label: "Customers", Component: CustomersSection },
  { id: "audit", label: "Audit log", Component: AuditSection },
  { id: "privacy", label: "Privacy requests", Component: PrivacySection },
  { id: "webhooks", label: "Webhooks", Component: WebhooksSection },
  { id: "releases", label: "Releases", Component: ReleasesSection },
  { id: "admins", label: "Admins", Component: AdminsSection },
] as const;

export function AdminConsole({ admin }: { admin: { email: string; source: "config" | "granted" } }) {
  const [params] = useSearchParams();
  const current = SECTIONS.find((section) => section.id === params.get("tab")) ?? SECTIONS[0];
  const { Component } = current;
  const problem = useConnectionProblem();
  const strip = useRef<HTMLElement>(null);
  // On a narrow screen the strip scrolls sideways: the open section's tab is brought into view (centred), so the
  // console never opens on a section whose tab is off-screen. Only the strip scrolls, never the page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the tab to show is read from the DOM; it changes with the section.
  useLayoutEffect(() => {
    const nav = strip.current;
    const tab = nav?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!nav || !tab || nav.scrollWidth <= nav.clientWidth) return;
    nav.scrollLeft = tab.offsetLeft - (nav.clientWidth - tab.offsetWidth) / 2;
  }, [current.id]);
  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 sm:py-10 lg:px-8">
      <header className="flex flex-col gap-2 border-b border-border pb-6 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">Operator console</h1>
          <p className="mt-1 text-sm text-fg-muted">
            Signed in as <span className="font-medium text-fg">{admin.email}</span> (admin{" "}
            {admin.source === "config" ? "from ADMIN_EMAILS" : "granted"}). Every change is recorded in the audit log.
          </p>
        </div>
        {problem && <ConnectionBadge problem={problem} />}
      </header>
      <ConnectionNotice />
      <nav
        ref={strip}
        aria-label="Console sections"
        className="relative -mx-4 mt-4 overflow-x-auto px-4 sm:mx-0 sm:px-0"
      >
        <ul className="flex min-w-max gap-1 border-b border-border">
          {SECTIONS.map((section) => {
            const active = section.id === current.id;
            return (
              <li key={section.id}>
                <Link
                  to={`?tab=${section.id}`}
                  aria-current={active ? "page" : undefined}
                  className={`-mb-px inline-flex h-10 items-center border-b-2 px-3 text-sm font-medium transition-colors ${
                    active
                      ? "border-sky-600 text-fg dark:border-sky-400"
                      : "border-transparent text-fg-muted hover:text-fg"
                  }`}
                >
                  {section.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <div className="mt-8">
        <Component key={current.id} />
      </div>
    </div>
  );
}
