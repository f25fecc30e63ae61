// /api/exchanges/{id}: GET (any logged-in user) one exchange; PUT (admin) { isEnabled } or
// { sandbox } answers the updated exchange; DELETE (admin) removes it. 404 JSON when there
// is no such exchange.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { UpdateExchangeSchema } from "#app/core/schemas/exchange-connection.ts";
import { deleteExchange, getExchangeView, updateExchangeFlags } from "#app/services/exchange-connections.server.ts";
import { refuseOnExposure } from "#app/services/exposure.server.ts";
import { firstIssue, jsonError, NO_STORE, readJsonObject } from "#app/utils/api.server.ts";
import { requireAdmin, requireUser } from "#app/services/sessions.server.ts";

const NOT_FOUND = "Exchange not found";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const exchange = await getExchangeView(context.db, params.id ?? "");
  if (!exchange) return jsonError(404, NOT_FOUND);
  return json(exchange, { headers: NO_STORE });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  const id = params.id ?? "";
  if (request.method === "PUT") {
    const parsed = UpdateExchangeSchema.safeParse(await readJsonObject(request));
    if (!parsed.success) {
      const { field, message } = firstIssue(parsed.error.issues);
      return jsonError(400, message, { field });
    }
    const updated = await updateExchangeFlags(context.db, id, parsed.data, user.username).catch(refuseOnExposure);
    if (updated instanceof Response) return updated;
    if (!updated) return jsonError(404, NOT_FOUND);
    return json(updated, { headers: NO_STORE });
  }
  if (request.method === "DELETE") {
    const removed = await deleteExchange(context.db, id, user.username).catch(refuseOnExposure);
    if (removed instanceof Response) return removed;
    if (!removed) return jsonError(404, NOT_FOUND);
    return json({ success: true, message: `Exchange "${removed.accountName}" deleted`, id }, { headers: NO_STORE });
  }
  return jsonError(405, `Method ${request.method} not allowed`);
}
