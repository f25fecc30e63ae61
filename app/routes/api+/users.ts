// GET /api/users: every account with role, 2FA state, last login (admin only).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { listUsers } from "#app/services/users.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return json(await listUsers(context.db), { headers: NO_STORE });
}
