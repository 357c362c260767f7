/**
 * The beta channel follows beta admission (decisions 0059, 0062), end to end: a signup admitted in a wave who signs
 * in with that address, creates a license and asks for beta gets the beta build; the same customer before admission,
 * another customer, and the tester after the invitation is withdrawn get stable only.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validSignup } from "./fixtures";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { auth, openPlatform, operator, publishRelease, rowsOf } from "./helpers/releases";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "release.beta@example.com";
const TESTER = "tess.tester@example.com";
const MAC = [{ platform: "macos", arch: "universal" }];

let app: FastifyInstance;
let close: () => Promise<void>;
let admin: string;

async function licensed(token: string, machine: string) {
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: bearer(token),
    payload: { tier: "free" },
  });
  const key = created.json().data.license.license_key as string;
  const bound = await app.inject({
    method: "POST",
    url: "/api/license/validate",
    payload: { license_key: key, machine_id: machine },
  });
  expect(bound.json().data.code).toBe("VALID");
  return key;
}

const check = (key: string, machine: string) =>
  app.inject({
    method: "POST",
    url: "/api/license/updates/check",
    payload: {
      license_key: key,
      machine_id: machine,
      current_version: "1.0.0",
      platform: "macos",
      arch: "aarch64",
      channel: "beta",
    },
  });

beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false, adminEmails: [ADMIN] }));
  const ops = await operator(app, ADMIN);
  admin = ops.admin;
  await openPlatform(app, admin, "macos");
  await publishRelease(app, ops.token, { version: "1.2.0", targets: MAC });
  await publishRelease(app, ops.token, { version: "1.3.0-beta.1", channel: "beta", targets: MAC });
}, 90_000);
afterAll(() => close());

describe("the beta channel and beta admission", () => {
  it("an admitted tester gets the beta build; a customer never admitted gets stable", async () => {
    const signedUp = await app.inject({
      method: "POST",
      url: "/api/signup",
      payload: validSignup({ email: TESTER, name: "Tess Tester", newsletter: false }),
    });
    expect(signedUp.statusCode, signedUp.body).toBe(200);
    const [signup] = await rowsOf<{ id: string }>(app, sql`select id from signups where email_normalized = ${TESTER}`);

    // Signed in and licensed before admission: stable.
    const tess = await devSignIn(app, { email: TESTER, name: "Tess Tester" });
    const key = await licensed(tess.token, "tess-mac");
    expect((await check(key, "tess-mac")).json().data.update.version).toBe("1.2.0");

    const wave = await app.inject({
      method: "POST",
      url: "/api/admin/beta/waves",
      headers: auth(admin),
      payload: { name: "First wave", date: "2026-12-01" },
    });
    const waveId = wave.json().data.id as string;
    const admitted = await app.inject({
      method: "POST",
      url: `/api/admin/beta/waves/${waveId}/admit`,
      headers: auth(admin),
      payload: { signup_ids: [signup!.id] },
    });
    expect(admitted.statusCode, admitted.body).toBe(200);
    // The invitation counts once its address signs in.
    await devSignIn(app, { email: TESTER, name: "Tess Tester" });
    expect((await check(key, "tess-mac")).json().data.update.version).toBe("1.3.0-beta.1");

    const other = await licensedCustomer(app, "not-a-tester");
    await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: other.key, machine_id: "o-mac" },
    });
    expect((await check(other.key, "o-mac")).json().data.update.version).toBe("1.2.0");

    // Withdrawn: stable again.
    const [invitation] = await rowsOf<{ id: string }>(
      app,
      sql`select id from beta_invitations where signup_id = ${signup!.id}`,
    );
    const withdrawn = await app.inject({
      method: "POST",
      url: `/api/admin/beta/invitations/${invitation!.id}/withdraw`,
      headers: auth(admin),
      payload: {},
    });
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect((await check(key, "tess-mac")).json().data.update.version).toBe("1.2.0");
  });
});
