import { createContext, useContext } from "react";

/**
 * Lets any page open the early-access signup modal (Get Early Access, Join Beta, the macOS card)
 * without importing the signup feature: the site layout provides it.
 */
export const SignupOpenerContext = createContext<(() => void) | null>(null);

export function useOpenSignup(): () => void {
  const open = useContext(SignupOpenerContext);
  if (!open) throw new Error("useOpenSignup must be used inside the site layout");
  return open;
}

/** The opener, or null outside the site layout (a component rendered on its own, as in a test). */
export function useOptionalOpenSignup(): (() => void) | null {
  return useContext(SignupOpenerContext);
}
