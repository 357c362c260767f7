import { docHref } from "@flotilla/contracts";
import { ArrowRight, Rocket } from "lucide-react";
import { useId } from "react";
import { Link } from "react-router";
import { useOptionalOpenSignup } from "../../lib/signup-opener";

/** Where the activation guide lives in the docs (docs/pricing.md, "Activating the desktop app"). */
export const ACTIVATION_DOCS_HREF = `${docHref("pricing")}#activating-the-desktop-app`;

/**
 * What a customer does after creating a license, shown in the license card while no device is active:
 * get the macOS beta (early access), paste the key into the app, and where the full guide is.
 */
export function LicenseNextStep() {
  const titleId = useId();
  const openSignup = useOptionalOpenSignup();
  const linkClass = "font-medium text-accent underline underline-offset-2";
  return (
    <section
      aria-labelledby={titleId}
      className="mt-5 rounded-xl border border-sky-500/30 bg-sky-500/5 p-4 sm:p-5"
      data-testid="license-next-step"
    >
      <h4 id={titleId} className="flex items-center gap-2 font-semibold">
        <Rocket className="size-4 text-accent" aria-hidden="true" />
        Next step: activate the desktop app
      </h4>
      <ol className="mt-3 list-decimal space-y-2 pl-5 text-sm leading-6 text-fg-muted marker:text-fg-muted">
        <li>
          <span className="font-medium text-fg">Get the macOS beta.</span> It is open to early-access members:{" "}
          {openSignup ? (
            <button type="button" onClick={openSignup} className={linkClass}>
              join early access
            </button>
          ) : (
            <Link to="/#roadmap" className={linkClass}>
              join early access
            </Link>
          )}{" "}
          and we email you the download. Windows and web follow in 2026.
        </li>
        <li>
          <span className="font-medium text-fg">Paste your license key.</span> The app asks for it on first launch
          (later: <span className="whitespace-nowrap">Settings → License</span>). Paste the key above and choose
          Activate.
        </li>
        <li>
          <span className="font-medium text-fg">Done.</span> The Mac appears under Device Management below, and this
          note goes away.
        </li>
      </ol>
      <Link to={ACTIVATION_DOCS_HREF} className={`mt-3 inline-flex items-center gap-1 text-sm ${linkClass}`}>
        Read the activation guide <ArrowRight className="size-3.5" aria-hidden="true" />
      </Link>
    </section>
  );
}
