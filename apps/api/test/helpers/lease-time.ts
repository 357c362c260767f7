/** Time passes for a lease: its start, last heartbeat and expiry move this many seconds into the past. */

import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";

export async function ageLease(app: FastifyInstance, id: string, seconds: number): Promise<void> {
  await app.database.db.execute(sql`
    update execution_leases set
      started_at = started_at - make_interval(secs => ${seconds}),
      last_heartbeat_at = last_heartbeat_at - make_interval(secs => ${seconds}),
      expires_at = expires_at - make_interval(secs => ${seconds})
    where id = ${id}`);
}
