// POST /api/positions/{symbol}/close (trader, admin): queues a close-position job for
// the whole remaining quantity (the worker sends a reduce-only market order), or for part of
// it: a body { quantity } or { percent } of what remains (JSON or a form; decision 048), sized by
// the same rule (app/core/rules/close.ts). Answers
// { success, message, jobId }; 404 JSON when there is no open position in the symbol. It
// works under the emergency stop (a close only reduces risk).
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { requestClosePosition } from "#app/services/positions.server.ts";
import { PartialCloseSchema } from "#app/core/schemas/position-edit.ts";
import { firstIssue, getNotAllowedLoader, jsonError, NO_STORE, readBodyObject } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "positions.close");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  // No body (the Close button): everything. A body: a quantity or a percent of what remains.
  const hasBody = Number(request.headers.get("content-length") ?? "0") > 0 || request.headers.has("transfer-encoding");
  let part = null;
  if (hasBody) {
    const body = await readBodyObject(request);
    if (Object.keys(body).length > 0) {
      const parsed = PartialCloseSchema.safeParse(body);
      if (!parsed.success) {
        const issue = firstIssue(parsed.error.issues);
        return jsonError(400, issue.message, { field: issue.field, success: false });
      }
      part = parsed.data;
    }
  }
  const result = await requestClosePosition(context.db, params.symbol ?? "", user.username, part);
  if (!result.ok) return jsonError(result.status, result.error, { success: false });
  return json({ success: true, message: result.message, jobId: result.jobId }, { headers: NO_STORE });
}
