/** A customer for licensing tests: signed in through the development issuer, holding a new free license. */
import type { FastifyInstance } from "fastify";
import { devSignIn } from "./dev-sign-in";

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let customers = 0;

/**
 * Each call signs in a new person (`<prefix><n>@example.com`), so tests never share a license by accident.
 * `offlineFiles: true` also gives the owner's consent to license files (off by default, decision 0036).
 */
export async function licensedCustomer(
  app: FastifyInstance,
  prefix: string,
  options: { offlineFiles?: boolean } = {},
): Promise<{ token: string; key: string }> {
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
  const key = created.json().data.license.license_key as string;
  if (options.offlineFiles) await allowOfflineFiles(app, token, key, true);
  return { token, key };
}

/** The owner turns license files on or off for their license. */
export async function allowOfflineFiles(app: FastifyInstance, token: string, key: string, allowed: boolean) {
  const answer = await app.inject({
    method: "PUT",
    url: `/api/customer/licenses/${key}/offline-files`,
    headers: bearer(token),
    payload: { allowed },
  });
  if (answer.statusCode !== 200) throw new Error(`offline-files: ${answer.statusCode} ${answer.body}`);
}
