/**
 * Loads oidc-provider for the development issuer without its "Unsupported runtime" warning on Node 20.
 *
 * oidc-provider warns, as its module is evaluated, on every Node line older than 22 ("Jod"): process.release.lts
 * compared by its first letter. Node 20.19 is this service's floor (decision 0041) and CI proves the development
 * issuer on it, so on that line the warning is only an alarming first line for someone who self-hosts. This drops that
 * one line, on Node 20 only, while the module loads; every other warning passes through, and on a line that is
 * neither 20 nor 22 and later (a non-LTS build) oidc-provider still says what it thinks.
 */
const UNSUPPORTED_RUNTIME = "oidc-provider WARNING: Unsupported runtime";

/** Node 20 ("Iron"), the floor the README and decision 0041 support. */
function onSupportedFloor(): boolean {
  return process.release.lts === "Iron";
}

export async function loadOidcProvider(): Promise<typeof import("oidc-provider")> {
  if (!onSupportedFloor()) return import("oidc-provider");
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].includes(UNSUPPORTED_RUNTIME)) return;
    warn(...args);
  };
  try {
    return await import("oidc-provider");
  } finally {
    console.warn = warn;
  }
}
