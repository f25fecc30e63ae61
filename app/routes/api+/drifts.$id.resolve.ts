// POST /api/drifts/{id}/resolve { action: "adopt" | "close" } (trader, admin; JSON or form):
// the worker asks the exchange again and books the fill that makes the app's position equal
// the exchange's (adopt), then for close closes it at market. Answers { success, drift, done }
// (202 while the worker has not finished within 10 s); 400 bad action, 404 unknown drift,
// 409 already ended.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { DriftResolveSchema } from "#app/core/schemas/drifts.ts";
import { requestDriftResolution } from "#app/services/drifts.server.ts";
import { NO_STORE, getNotAllowedLoader, jsonError, readBodyObject } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "drifts.resolve");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = DriftResolveSchema.safeParse(await readBodyObject(request));
  if (!parsed.success)
    return jsonError(400, parsed.error.issues[0]?.message ?? "Invalid request", { success: false, field: "action" });
  const result = await requestDriftResolution(context.db, params.id ?? "", parsed.data.action, user.username);
  if (!result.ok) return jsonError(result.status, result.error, { success: false });
  return json(
    { success: true, drift: result.drift, done: result.done },
    { status: result.done ? 200 : 202, headers: NO_STORE },
  );
}
