// GET /api/audit?before=<id>&limit=50 (admin, "audit.read"): the audit trail, newest first
// (issue 13, decision 029). Answers { entries, nextBefore }: pass nextBefore as `before` for
// the next (older) page; null when there is none.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requirePermission } from "#app/utils/auth.server.ts";
import { auditPageParams, listAudit } from "#app/services/audit.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "audit.read");
  return json(await listAudit(context.db, auditPageParams(new URL(request.url))), { headers: NO_STORE });
}
