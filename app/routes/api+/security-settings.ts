// GET /api/security-settings: { registrationOpen, requireTwoFactor }; POST changes them
// (JSON or form). Admin only.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { SecuritySettingsSchema } from "#app/core/schemas/users.ts";
import { getSecuritySettings, updateSecuritySettings } from "#app/services/users.server.ts";
import { NO_STORE, firstIssue, jsonError, readBodyObject } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return json(await getSecuritySettings(context.db), { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = SecuritySettingsSchema.safeParse(await readBodyObject(request));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field });
  }
  return json(await updateSecuritySettings(context.db, user, parsed.data), { headers: NO_STORE });
}
