/**
 * The tests' side of the declarations (issue 25): every answer a test app gives is checked against the statuses its
 * route declares, and whatever was answered but not declared is remembered here for the setup file
 * (test/setup/declared-answers.ts), which fails the test file. So the OpenAPI document's answers are complete as far
 * as the suite reaches, and a new refusal cannot ship undocumented.
 *
 * Routes without a response schema are not checked (the hidden site and not-found routes). A status counts as
 * declared when the route lists it (or its class, `4xx`), or when it is one of the failures its `default` stands
 * for (src/plugins/answers.ts): a `default` never excuses a status outside that set.
 */
import type { FastifyInstance } from "fastify";
import { otherFailureStatuses } from "../../src/plugins/answers";

/** "METHOD /route status", once each, in the order first answered. */
export const undeclaredAnswers = new Set<string>();

export function declares(response: Record<string, unknown>, status: number): boolean {
  const code = String(status);
  if (code in response || `${code[0]}xx` in response || `${code[0]}XX` in response) return true;
  return otherFailureStatuses(response.default).includes(status);
}

/** Adds the check to an app (before it is ready: hooks apply to every route then). */
export function checkDeclaredAnswers(app: FastifyInstance) {
  app.addHook("onResponse", (request, reply, done) => {
    const response = request.routeOptions.schema?.response as Record<string, unknown> | undefined;
    if (response && !declares(response, reply.statusCode)) {
      undeclaredAnswers.add(`${request.method} ${request.routeOptions.url} ${reply.statusCode}`);
    }
    done();
  });
}
