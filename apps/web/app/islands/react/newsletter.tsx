/**
 * The Stay Updated box on a prerendered page: the same component hydrates the markup it rendered at build time,
 * so the field keeps focus and whatever was typed before the island arrived.
 */
import "./renderer";
import { type ReactNode, useEffect } from "react";
import { hydrateRoot } from "react-dom/client";
import { subscribeToNewsletter } from "../../features/blog/api";
import { StayUpdated } from "../../features/blog/stay-updated";

/** Renders nothing of its own (the markup must match the page's); tells when hydration has committed. */
function Committed({ onCommit, children }: { onCommit: () => void; children: ReactNode }) {
  useEffect(onCommit, [onCommit]);
  return children;
}

export function hydrate(container: HTMLElement): Promise<void> {
  const typed = container.querySelector<HTMLInputElement>("input[type=email]")?.value ?? "";
  return new Promise((resolve) => {
    const committed = () => {
      container.dataset.hydrated = "true";
      resolve();
    };
    hydrateRoot(
      container,
      <Committed onCommit={committed}>
        <StayUpdated subscribe={subscribeToNewsletter} initialEmail={typed} />
      </Committed>,
    );
  });
}
