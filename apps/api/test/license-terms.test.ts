/** One limit (decision 0051): a license's terms come from the tier table only, and an unknown tier is refused. */
import { TIER_IDS, TIERS } from "@flotilla/contracts/tiers";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { termsOf, UnknownTierError } from "../src/modules/licenses/seats/license-terms";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

describe("a license's terms", () => {
  it("come from its tier's row, with its own device limit", () => {
    expect(termsOf({ tier: "free", maxMachines: 7 })).toMatchObject({
      maxMachines: 7,
      executionLimit: TIERS.free.features.maxConcurrentExecutions,
      features: TIERS.free.features,
      heartbeatIntervalSeconds: TIERS.free.heartbeatIntervalSeconds,
    });
    expect(termsOf({ tier: "plus", maxMachines: 5 }).executionLimit).toBeNull();
  });

  it("an unknown tier is refused, never unlimited — including names that are not the table's own keys", () => {
    for (const tier of ["gold", "", "__proto__", "constructor", "FREE"]) {
      expect(() => termsOf({ tier, maxMachines: 3 })).toThrow(UnknownTierError);
    }
  });

  it("the database holds only the table's tiers: its CHECK constraint lists exactly TIER_IDS", async () => {
    const result = (await app.database.db.execute(sql`
      select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'licenses_tier_known'`)) as unknown as {
      rows: { def: string }[];
    };
    const listed = [...result.rows[0]!.def.matchAll(/'([^']+)'/g)].map((match) => match[1]);
    expect(listed.sort()).toEqual([...TIER_IDS].sort());
  });
});
