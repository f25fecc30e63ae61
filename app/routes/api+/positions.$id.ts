// PATCH /api/positions/{id} (positions.close: trader, admin): edits one open position in place
// (issue 25, docs/decisions/048-edit-a-position.md): its stop loss, take-profit levels,
// break-even and trailing stop, in the shape of app/core/schemas/position-edit.ts. Answers
// { success, changed, message, position }; 400 { error, field } with the reason (a long's stop
// above the current price ...); 404 no open position with the id; 405 other methods.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { PositionEditSchema } from "#app/core/schemas/position-edit.ts";
import { editPosition } from "#app/services/positions.server.ts";
import { firstIssue, getNotAllowedLoader, jsonError, NO_STORE, readJsonObject } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "positions.close");
  if (request.method !== "PATCH") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = PositionEditSchema.safeParse(await readJsonObject(request));
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues);
    return jsonError(400, issue.message, { field: issue.field });
  }
  const result = await editPosition(context.db, params.id ?? "", parsed.data, user.username);
  if (!result.ok) return jsonError(result.status, result.error, result.field ? { field: result.field } : {});
  return json(
    { success: true, changed: result.changed, message: result.message, position: result.position },
    { headers: NO_STORE },
  );
}
