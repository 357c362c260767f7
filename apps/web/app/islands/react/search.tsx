import { DocsSearchDialogView } from "../../features/docs/docs-search";
import { type DialogProps, dialogIsland } from "./dialog-island";

/** A result is another prerendered page: going there is a page load. */
const goTo = (href: string) => window.location.assign(href);

/** The docs search (⌘K). */
export const { open } = dialogIsland((props: DialogProps) => <DocsSearchDialogView {...props} navigate={goTo} />);
