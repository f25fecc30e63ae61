// GET /api/audit?before=<id>&limit=50 (admin, "audit.read"): the audit trail, newest first
// (issue 13, decision 029). Answers { entries, nextBefore }: pass nextBefore as `before` for
// the next (older) page; null when there is none.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requirePermission } from "#app/services/sessions.server.ts";
import { auditPage } from "#app/services/audit.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "audit.read");
  const { entries, nextBefore } = await auditPage(context.db, new URL(request.url));
  return json({ entries, nextBefore }, { headers: NO_STORE });
}
