/**
 * Whether a customer is an admitted beta tester: the beta channel's gate (decision 0059). Admission is the beta
 * module's (decision 0062): an accepted, not withdrawn invitation of exactly the customer's address.
 */
import type { Database } from "../../db/client";
import { isAdmittedTester } from "../beta/testers";

export type TesterCheck = (customerId: string) => Promise<boolean>;

export function admittedTesters(db: Database): TesterCheck {
  return (customerId) => isAdmittedTester(db, customerId);
}
