// PUT /api/heartbeats/{key} { intervalSeconds, graceSeconds? } (admin): expect a heartbeat alert
// from the strategy ("default" = the global secret, else a strategy's id) at that interval;
// DELETE stops expecting one. Answers { success, heartbeats }; 400 names the field; 404 an
// unknown strategy.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { HeartbeatExpectationSchema } from "#app/core/schemas/heartbeat.ts";
import { NO_STORE, getNotAllowedLoader, jsonError, readBodyObject } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";
import { isHeartbeatKey, listStrategyHeartbeats, setHeartbeatExpectation } from "#app/services/heartbeats.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "settings.change");
  const key = params.key ?? "";
  if (!(await isHeartbeatKey(context.db, key))) {
    return jsonError(404, `No strategy ${key}`, { success: false });
  }
  if (request.method === "DELETE") {
    await setHeartbeatExpectation(context.db, key, null, user.username);
  } else if (request.method === "PUT" || request.method === "POST") {
    const parsed = HeartbeatExpectationSchema.safeParse(await readBodyObject(request));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return jsonError(400, issue?.message ?? "Invalid request", {
        success: false,
        field: String(issue?.path[0] ?? "intervalSeconds"),
      });
    }
    await setHeartbeatExpectation(context.db, key, parsed.data, user.username);
  } else {
    return jsonError(405, `Method ${request.method} not allowed`);
  }
  return json({ success: true, heartbeats: await listStrategyHeartbeats(context.db) }, { headers: NO_STORE });
}
