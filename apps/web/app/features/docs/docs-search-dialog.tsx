/**
 * The portal's docs search: the dialog with the router's navigation. Kept apart from docs-search.tsx so the content
 * pages' search island (app/islands/react/search.tsx) bundles no router.
 */
import { useNavigate } from "react-router";
import { type DocsSearchDialogProps, DocsSearchDialogView } from "./docs-search";

/** One search dialog per docs layout; any number of buttons open it. */
export function DocsSearchDialog(props: DocsSearchDialogProps) {
  const navigate = useNavigate();
  return <DocsSearchDialogView {...props} navigate={navigate} />;
}
