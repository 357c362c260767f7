import type { FastifyInstance } from "fastify";
import { devSignIn } from "../../apps/api/test/helpers/dev-sign-in";

export async function devSignInInject(app: FastifyInstance, email: string): Promise<string> {
  return (await devSignIn(app, { email, name: "Bench" })).token;
}
