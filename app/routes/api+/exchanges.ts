// GET /api/exchanges (any logged-in user): { exchanges: [...] } with the API key truncated to
// 20 characters plus "...", never a secret. POST /api/exchanges (admin): docs/spec/api.md's
// exchangeName, accountName, apiKey, apiSecret, passphrase, sandbox, isEnabled; answers the
// created exchange (201), or 400 { error, field } with the message of docs/spec/api.md#validation.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { AddExchangeSchema } from "#app/core/schemas/exchange-connection.ts";
import { addExchangeConnection, listExchanges } from "#app/services/exchange-connections.server.ts";
import { refuseOnExposure } from "#app/services/exposure.server.ts";
import { firstIssue, jsonError, NO_STORE, readJsonObject, requireMethod } from "#app/utils/api.server.ts";
import { requireAdmin, requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json({ exchanges: await listExchanges(context.db) }, { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  requireMethod(request, "POST");
  const parsed = AddExchangeSchema.safeParse(await readJsonObject(request));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field });
  }
  const created = await addExchangeConnection(context.db, context.config, parsed.data, user.username).catch(
    refuseOnExposure,
  );
  if (created instanceof Response) return created;
  return json(created, { status: 201, headers: NO_STORE });
}
