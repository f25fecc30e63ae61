// /api/strategies/{id}: GET (every role) one strategy; PUT (admin) changes the fields given
// (the rest stay, the whole is validated again); DELETE (admin) removes it (409 while it has
// open positions). 404 JSON when there is no such strategy.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { StrategyError, changeStrategy, getStrategyView, removeStrategy } from "#app/services/strategies.server.ts";
import { jsonError, NO_STORE, readJsonObject } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const view = await getStrategyView(request, context, params.id ?? "", user.role);
  if (!view) return jsonError(404, "Strategy not found");
  return json(view, { headers: NO_STORE });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "strategies.manage");
  const id = params.id ?? "";
  try {
    if (request.method === "PUT") {
      await changeStrategy(context.db, id, await readJsonObject(request), user.username);
      return json(await getStrategyView(request, context, id, user.role), { headers: NO_STORE });
    }
    if (request.method === "DELETE") {
      await removeStrategy(context.db, id, user.username);
      return json({ success: true, id }, { headers: NO_STORE });
    }
  } catch (error) {
    if (error instanceof StrategyError)
      return jsonError(error.status, error.message, error.field ? { field: error.field } : {});
    throw error;
  }
  return jsonError(405, `Method ${request.method} not allowed`);
}
