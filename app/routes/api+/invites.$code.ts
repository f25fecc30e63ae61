// DELETE /api/invites/{code}: revokes an open invitation (404 when none). Admin only.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { revokeInviteBy } from "#app/services/users.server.ts";
import { NO_STORE, getNotAllowedLoader, jsonError } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "DELETE") return jsonError(405, `Method ${request.method} not allowed`);
  const outcome = await revokeInviteBy(context.db, user, params.code ?? "");
  if (!outcome.ok) return jsonError(outcome.status, outcome.error);
  return json({ success: true }, { headers: NO_STORE });
}
