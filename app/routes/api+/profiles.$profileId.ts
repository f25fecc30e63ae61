// DELETE /api/profiles/{profileId} with body {toProfileId}: moves the profile's funds to the
// destination (required) and deactivates it, in one transaction. The default profile cannot
// be deleted (409).
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { DeleteProfileSchema, stringFields } from "#app/core/schemas/profiles.ts";
import { deleteProfile } from "#app/services/profiles.server.ts";
import { firstIssue, getNotAllowedLoader, jsonError, NO_STORE, readJsonObject } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "profiles.manage");
  if (request.method !== "DELETE") return jsonError(405, `Method ${request.method} not allowed`);
  const body = stringFields(await readJsonObject(request), ["toProfileId"]);
  const parsed = DeleteProfileSchema.safeParse({ ...body, profileId: params.profileId ?? "" });
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field, success: false });
  }
  const result = await deleteProfile(context.db, parsed.data.profileId, parsed.data.toProfileId, user.username);
  if (!result.ok) return jsonError(result.status, result.error, { success: false });
  return json({ success: true, message: result.value.message }, { headers: NO_STORE });
}
