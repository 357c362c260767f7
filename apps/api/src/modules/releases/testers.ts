/**
 * Whether a customer is an admitted beta tester: the beta channel's gate (decision 0059).
 *
 * TODO(issue 36, h-beta36): beta admission is built on another branch, which exports
 * `isAdmittedTester(db, customerId)` from `modules/beta/testers.ts`. Until it lands on main, nobody is admitted and
 * only the stable channel reaches customers; when it lands, this function calls it and nothing else changes.
 */
import type { Database } from "../../db/client";

export type TesterCheck = (customerId: string) => Promise<boolean>;

export function admittedTesters(_db: Database): TesterCheck {
  return async () => false;
}
