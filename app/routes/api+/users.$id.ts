// PATCH /api/users/{id} {role?, disabled?}: change an account; DELETE /api/users/{id}: delete
// it. Admin only; the last active admin cannot be demoted, disabled or deleted (409).
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { UserUpdateSchema } from "#app/core/schemas/users.ts";
import { deleteUserBy, updateUserBy } from "#app/services/users.server.ts";
import { NO_STORE, firstIssue, getNotAllowedLoader, jsonError, readBodyObject } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireAdmin);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  const id = params.id ?? "";
  if (request.method === "DELETE") {
    const outcome = await deleteUserBy(context.db, user, id);
    if (!outcome.ok) return jsonError(outcome.status, outcome.error);
    return json({ success: true }, { headers: NO_STORE });
  }
  if (request.method !== "PATCH") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = UserUpdateSchema.safeParse(await readBodyObject(request));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field });
  }
  const outcome = await updateUserBy(context.db, user, id, parsed.data);
  if (!outcome.ok) return jsonError(outcome.status, outcome.error);
  return json(outcome.value, { headers: NO_STORE });
}
