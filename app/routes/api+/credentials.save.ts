// POST /api/credentials/save (admin): { apiKey, apiSecret, sandbox } for the trading
// connection. Answers { success: true, message } or 4xx { success: false, error, title }
// with the texts of docs/spec/api.md#validation (missing, masked values, nothing to save).
import type { ActionFunctionArgs } from "@remix-run/node";
import { SaveCredentialsFields } from "#app/core/schemas/exchange-connection.ts";
import { saveCredentials } from "#app/services/exchange-connections.server.ts";
import { getNotAllowedLoader, outcomeJson, readJsonObject, requireMethod } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  requireMethod(request, "POST");
  // The shape only: the rules of docs/spec/api.md#validation, in their order, are saveCredentials' first step.
  const input = SaveCredentialsFields.parse(await readJsonObject(request));
  const outcome = await saveCredentials(context.db, context.config, input, user.username);
  return outcomeJson(outcome);
}
