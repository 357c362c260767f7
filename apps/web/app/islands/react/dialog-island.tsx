/**
 * A React island for a dialog on a prerendered page (docs/decisions/0040): mounted on the first open, into a
 * container of its own at the end of <body>, and kept mounted so that its close transitions and resets (the
 * signup form's 300 ms reset) run as they do in the portal. Focus returns to whichever button opened it.
 */
import "./renderer";
import { type ComponentType, useEffect, useState } from "react";
import { flushSync } from "react-dom";
import { createRoot } from "react-dom/client";
import { useRestoreFocus } from "../../components/use-restore-focus";

export interface DialogProps {
  open: boolean;
  onClose: () => void;
}

export interface DialogIsland {
  open(opener: HTMLElement | null): void;
}

export function dialogIsland(Dialog: ComponentType<DialogProps>): DialogIsland {
  let show: ((opener: HTMLElement | null) => void) | null = null;

  function Host({ firstOpener }: { firstOpener: HTMLElement | null }) {
    const [state, setState] = useState({ open: true, opener: firstOpener });
    useEffect(() => {
      show = (opener) => setState({ open: true, opener });
      return () => {
        show = null;
      };
    }, []);
    useRestoreFocus(state.open, state.opener);
    return <Dialog open={state.open} onClose={() => setState((current) => ({ ...current, open: false }))} />;
  }

  return {
    open(opener) {
      // Synchronously: the dialog is up in the same task as the tap that asked for it.
      if (show) {
        const reopen = show;
        flushSync(() => reopen(opener));
        return;
      }
      const container = document.createElement("div");
      document.body.append(container);
      const root = createRoot(container);
      flushSync(() => root.render(<Host firstOpener={opener} />));
    },
  };
}
