import { Link } from "react-router";
import { buttonClass } from "../../components/button";

/**
 * The right end of the top bar. Signed-out visitors get Get Started → /login;
 * the signed-in user menu plugs in here once sign-in exists.
 */
export function AccountArea({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <Link to="/login" className={buttonClass("primary", "sm")} onClick={onNavigate}>
      Get Started
    </Link>
  );
}
