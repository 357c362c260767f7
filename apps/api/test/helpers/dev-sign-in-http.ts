/**
 * The development sign-in over real HTTP (fetch with manual redirects and a cookie jar), for tests and
 * benchmarks that drive a running server rather than app.inject. `route.door` sends each request to another
 * server (instances of one cluster, with the public `route.host`), as a load balancer might.
 */
export async function devSignInOverHttp(
  base: string,
  identity: { email: string; name: string },
  route: { door: () => string; host: string } | null = null,
): Promise<string> {
  const jar = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}) => {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    let target = new URL(url, base);
    if (route) target = new URL(`${target.pathname}${target.search}`, route.door());
    const response = await fetch(target, {
      redirect: "manual",
      // Bounded like the SDK's client (30 s): a server that never answers fails the sign-in, it does not hang it.
      signal: AbortSignal.timeout(30_000),
      ...init,
      headers: {
        ...(init.headers as Record<string, string>),
        cookie,
        // fetch cannot set Host: the public host travels as X-Forwarded-Host, as a proxy would send it.
        ...(route ? { "x-forwarded-host": route.host, "x-forwarded-proto": "http" } : {}),
      },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    return response;
  };
  const start = await go("/api/auth/google/url", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ state: "/dashboard" }),
  });
  let response = await go(((await start.json()) as { authUrl: string }).authUrl);
  while (response.status >= 300 && response.status < 400) response = await go(response.headers.get("location")!);
  const action = /action="([^"]+)"/.exec(await response.text())?.[1];
  if (!action) throw new Error("no development sign-in form");
  response = await go(action, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(identity).toString(),
  });
  for (let hops = 0; hops < 5; hops++) {
    const location = new URL(response.headers.get("location") ?? "", base);
    if (location.pathname === "/auth/callback") {
      const callback = await go("/api/auth/google/callback", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: location.searchParams.get("code"), state: location.searchParams.get("state") }),
      });
      if (!callback.ok) throw new Error(`callback answered ${callback.status}`);
      return ((await callback.json()) as { data: { token: string } }).data.token;
    }
    response = await go(location.toString());
  }
  throw new Error("sign-in did not reach the callback");
}
