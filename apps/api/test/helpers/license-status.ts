/** Sets a license's status as the console and the admin CLI do: under its seat lock, announced after commit. */
import type { FastifyInstance } from "fastify";
import { setLicenseStatus } from "../../src/modules/licenses/seats/machine-slots";

export function setStatus(app: FastifyInstance, licenseKey: string, status: "active" | "suspended" | "expired") {
  return app.licensing.seats.changeByKey(licenseKey, (locked) => setLicenseStatus(locked, status));
}
