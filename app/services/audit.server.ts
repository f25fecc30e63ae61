// The audit trail as the Audit page and GET /api/audit read it (decision 029); entries are
// written by the services that change what they record, in the change's own transaction.
import type { Kysely } from "kysely";
import { cursorPageParams } from "#app/utils/api.server.ts";
import { listAudit } from "#db/queries/audit.ts";
import type { DB } from "#db/schema.ts";

/** One page of the trail, newest first, for the request's ?before=<id>&limit=<n>; `first`: no cursor was given. */
export async function auditPage(db: Kysely<DB>, url: URL) {
  const page = cursorPageParams(url);
  return { ...(await listAudit(db, page)), first: page.before == null, limit: page.limit };
}
