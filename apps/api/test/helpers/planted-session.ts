/**
 * A signed-in session as a Google sign-in leaves it (the customer and a session row), for servers that run no
 * development issuer: production and exposed configurations, where devSignIn cannot work by design.
 */
import type { FastifyInstance } from "fastify";
import { newOpaqueToken, sha256Hex } from "../../src/lib/tokens";
import { insertSession, upsertCustomer } from "../../src/modules/auth/queries";

export async function plantedSession(
  app: FastifyInstance,
  email: string,
  options: { endsAt?: Date } = {},
): Promise<string> {
  const now = new Date();
  const customer = await upsertCustomer(
    app.database.db,
    {
      issuer: "https://accounts.google.com",
      subject: `planted-${sha256Hex(email).slice(0, 24)}`,
      email,
      name: email,
      avatarUrl: null,
    },
    now,
  );
  const token = newOpaqueToken();
  const end = options.endsAt ?? new Date(now.getTime() + 86_400_000);
  await insertSession(app.database.db, {
    tokenHash: sha256Hex(token),
    customerId: customer.id,
    expiresAt: end,
    absoluteExpiresAt: end,
    browserHash: null,
  });
  return token;
}
