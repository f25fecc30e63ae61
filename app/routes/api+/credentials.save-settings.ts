// POST /api/credentials/save-settings (admin): { sandbox } of the trading connection alone.
// Answers { success: true, message } or 400 { success: false, error } ('No settings have
// been modified' when sandbox is already so).
import type { ActionFunctionArgs } from "@remix-run/node";
import { SaveSettingsSchema } from "#app/core/schemas/exchange-connection.ts";
import { saveCredentialSettings } from "#app/services/exchange-connections.server.ts";
import {
  firstIssue,
  getNotAllowedLoader,
  jsonError,
  outcomeJson,
  readJsonObject,
  requireMethod,
} from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  requireMethod(request, "POST");
  const parsed = SaveSettingsSchema.safeParse(await readJsonObject(request));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field, success: false });
  }
  const outcome = await saveCredentialSettings(context.db, context.config, parsed.data.sandbox, user.username);
  return outcomeJson(outcome);
}
