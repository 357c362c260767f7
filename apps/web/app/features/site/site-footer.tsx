import { BRAND } from "@flotilla/contracts";
import { Link } from "react-router";
import { Logo } from "../../components/logo";
import { RELEASE_NOTES_PATH } from "../release-notes/release-notes";

const COLUMNS = [
  {
    title: "Product",
    links: [
      { label: "Features", href: "/#features" },
      { label: "Roadmap", href: "/#roadmap" },
      { label: "Integrations", href: "/#integrations" },
      { label: "Pricing", href: "/#pricing" },
    ],
  },
  {
    title: "Resources",
    links: [
      { label: "Documentation", href: "/docs" },
      { label: "API Reference", href: "/api-reference" },
      { label: "Publisher's Guide", href: "/publishers-guide" },
      { label: "Support", href: "/about#support" },
      { label: "Community", href: "/about#community" },
    ],
  },
  {
    title: "Company",
    links: [
      { label: "Docs", href: "/docs" },
      { label: "About", href: "/about" },
      { label: "Blog", href: "/blog" },
      { label: "Terms", href: "/terms" },
      { label: "Privacy", href: "/privacy" },
    ],
  },
] as const;

export function SiteFooter() {
  return (
    <footer className="border-t border-border bg-bg-subtle">
      <div className="mx-auto grid max-w-7xl gap-10 px-4 py-14 sm:px-6 md:grid-cols-[1.4fr_repeat(3,1fr)] lg:px-8">
        <div className="max-w-xs">
          <Logo />
          <p className="mt-4 text-sm leading-6 text-fg-muted">
            {BRAND.tagline}. Local agents, isolated worktrees, shared memory, and you in charge of every merge.
          </p>
          <Link to={RELEASE_NOTES_PATH} className="mt-4 inline-block text-sm font-medium text-accent hover:underline">
            View Release Notes →
          </Link>
        </div>
        {COLUMNS.map((column) => (
          <nav key={column.title} aria-label={column.title}>
            <h2 className="text-sm font-semibold text-fg">{column.title}</h2>
            <ul className="mt-4 space-y-2.5">
              {column.links.map((link) => (
                <li key={link.label}>
                  <Link to={link.href} className="text-sm text-fg-muted hover:text-fg">
                    {link.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
      <div className="border-t border-border">
        <p className="mx-auto max-w-7xl px-4 py-6 text-xs text-fg-muted sm:px-6 lg:px-8">
          © {BRAND.copyrightYear} {BRAND.name}. All rights reserved.
        </p>
      </div>
    </footer>
  );
}
