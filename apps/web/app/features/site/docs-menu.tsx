import { DOCS_GROUPS, docHref } from "@flotilla/contracts";
import { ChevronDown } from "lucide-react";
import { useCallback, useId, useRef, useState } from "react";
import { Link } from "react-router";
import { useDismiss } from "./use-dismiss";

/** The Docs item of the top bar: a disclosure listing the ten docs pages by group. */
export function DocsMenu({ active }: { active: boolean }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const container = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, close, container, trigger);

  return (
    <div className="relative" ref={container} data-docs-menu>
      <button
        ref={trigger}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((value) => !value)}
        className={`group ${navItemClass(active)}`}
        aria-current={active ? "page" : undefined}
      >
        Docs
        <ChevronDown className="size-3.5 transition-transform group-aria-expanded:rotate-180" aria-hidden="true" />
      </button>
      <div
        id={panelId}
        hidden={!open}
        className="absolute left-1/2 top-full z-50 mt-2 w-[34rem] -translate-x-1/2 rounded-xl border border-border bg-bg-elevated p-4 shadow-xl shadow-black/10"
      >
        <div className="grid grid-cols-3 gap-4">
          {DOCS_GROUPS.map((group) => (
            <div key={group.title}>
              <p className="mb-2 text-xs font-semibold uppercase tracking-wider text-fg-muted">{group.title}</p>
              <ul className="space-y-0.5">
                {group.pages.map((page) => (
                  <li key={page.slug}>
                    <Link
                      to={docHref(page.slug)}
                      onClick={close}
                      className="block rounded-md px-2 py-1.5 text-sm text-fg hover:bg-bg-subtle"
                    >
                      {page.title}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

export function navItemClass(active: boolean): string {
  return `inline-flex items-center gap-1 rounded-md px-3 py-2 text-sm font-medium transition-colors ${
    active ? "text-fg bg-bg-subtle" : "text-fg-muted hover:text-fg"
  }`;
}
