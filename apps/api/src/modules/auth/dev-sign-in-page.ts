/** The development issuer's sign-in page: plain HTML with its own nonce-based CSP, no scripts. */
import { BRAND } from "@flotilla/contracts/brand";

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface SignInPageProps {
  action: string;
  styleNonce: string;
  email?: string;
  name?: string;
  error?: string;
  /** Why the development sign-in runs on this server (config: loopback only, or DEV_SIGN_IN=true). */
  reason: "loopback" | "opt-in";
}

const WHY: Record<SignInPageProps["reason"], string> = {
  loopback:
    "It is on because this server only listens on this machine (HOST and PUBLIC_ORIGIN are loopback addresses), so nobody else can reach it.",
  "opt-in":
    "It is on because DEV_SIGN_IN=true: anyone who can reach this server can sign in as anyone. Use it only on a network you trust.",
};

export function renderDevSignInPage(props: SignInPageProps): string {
  const error = props.error ? `<p class="error" role="alert" id="form-error">${escapeHtml(props.error)}</p>` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Development sign-in · ${escapeHtml(BRAND.name)}</title>
<style nonce="${props.styleNonce}">
  :root { color-scheme: light dark; --fg:#0f172a; --muted:#475569; --bg:#f8fafc; --card:#fff; --border:#cbd5e1; --accent:#4f46e5; }
  @media (prefers-color-scheme: dark) { :root { --fg:#e2e8f0; --muted:#94a3b8; --bg:#020617; --card:#0f172a; --border:#334155; --accent:#818cf8; } }
  * { box-sizing: border-box; }
  body { margin:0; min-height:100vh; display:grid; place-items:center; font:16px/1.5 system-ui, sans-serif; background:var(--bg); color:var(--fg); padding:24px; }
  main { width:100%; max-width:420px; background:var(--card); border:1px solid var(--border); border-radius:16px; padding:32px; }
  .badge { display:inline-block; font-size:12px; font-weight:600; letter-spacing:.04em; text-transform:uppercase; color:#92400e; background:#fef3c7; border:1px solid #fcd34d; border-radius:999px; padding:2px 10px; }
  h1 { font-size:24px; margin:16px 0 4px; }
  p { color:var(--muted); margin:0 0 20px; font-size:14px; }
  label { display:block; font-weight:600; font-size:14px; margin:16px 0 6px; }
  input { width:100%; font:inherit; padding:10px 12px; border-radius:8px; border:1px solid var(--border); background:transparent; color:inherit; }
  input:focus-visible, button:focus-visible { outline:3px solid var(--accent); outline-offset:2px; }
  button { margin-top:24px; width:100%; font:inherit; font-weight:600; padding:10px 16px; border:0; border-radius:8px; background:var(--accent); color:#fff; cursor:pointer; }
  .error { color:#dc2626; background:#fef2f2; border:1px solid #fecaca; border-radius:8px; padding:8px 12px; margin:16px 0 0; }
  .note { margin-top:20px; font-size:12px; }
</style>
</head>
<body>
<main>
  <span class="badge">Development sign-in</span>
  <h1>Sign in to ${escapeHtml(BRAND.name)}</h1>
  <p>This local sign-in stands in for Google while the service runs without Google credentials. Any email works; no password is asked.</p>
  <form method="post" action="${escapeHtml(props.action)}" novalidate>
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(props.email ?? "")}"${props.error ? ' aria-describedby="form-error"' : ""}>
    <label for="name">Name</label>
    <input id="name" name="name" type="text" autocomplete="name" required maxlength="100" value="${escapeHtml(props.name ?? "")}">
    ${error}
    <button type="submit">Sign in</button>
  </form>
  <p class="note" id="why">${escapeHtml(WHY[props.reason])} Never enabled in production: there the service requires GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET.</p>
</main>
</body>
</html>`;
}
