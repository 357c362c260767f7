/**
 * Fails a test file whose apps answered a status their route does not declare (helpers/declared-answers.ts): the
 * OpenAPI document would have left that answer out. Declare it, with its meaning, with `refusals()`
 * (src/plugins/answers.ts).
 */
import { afterAll } from "vitest";
import { undeclaredAnswers } from "../helpers/declared-answers";

afterAll(() => {
  if (undeclaredAnswers.size === 0) return;
  const answers = [...undeclaredAnswers];
  undeclaredAnswers.clear();
  throw new Error(
    `answered without being declared by the route (add it to its refusals(), src/plugins/answers.ts):\n  ${answers.join("\n  ")}`,
  );
});
