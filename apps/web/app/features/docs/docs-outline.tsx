import type { Heading } from "../content/types";

export function DocsOutline({ headings }: { headings: Heading[] }) {
  if (headings.length === 0) return null;
  return (
    <nav aria-label="On this page" className="text-sm">
      <h2 className="mb-3 text-xs font-semibold uppercase tracking-wider text-fg-muted">On this page</h2>
      <ul className="space-y-2 border-l border-border">
        {headings.map((heading) => (
          <li key={heading.id} className={heading.depth === 3 ? "pl-6" : "pl-3"}>
            <a href={`#${heading.id}`} className="block text-fg-muted hover:text-fg">
              {heading.text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
