/** A customer for licensing tests: signed in through the development issuer, holding a new free license. */
import type { FastifyInstance } from "fastify";
import { devSignIn } from "./dev-sign-in";

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let customers = 0;

/** Each call signs in a new person (`<prefix><n>@example.com`), so tests never share a license by accident. */
export async function licensedCustomer(app: FastifyInstance, prefix: string): Promise<{ token: string; key: string }> {
  customers += 1;
  const { token } = await devSignIn(app, {
    email: `${prefix}${customers}@example.com`,
    name: `${prefix} ${customers}`,
  });
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: bearer(token),
    payload: { tier: "free" },
  });
  return { token, key: created.json().data.license.license_key as string };
}
