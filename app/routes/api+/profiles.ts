// GET /api/profiles: the active profiles (docs/spec/api.md#shapes Profile, with balances).
// POST /api/profiles {name}: creates one; 201 with the profile, 400 'Profile name is required'.
// Any logged-in user (docs/decisions/011-profiles-market-reports.md).
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { CreateProfileSchema, stringFields } from "#app/core/schemas/profiles.ts";
import { createProfile, listProfileViews } from "#app/services/profiles.server.ts";
import { firstIssue, jsonError, NO_STORE, readJsonObject } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  try {
    const { profiles } = await listProfileViews(context.db);
    return json(profiles, { headers: NO_STORE });
  } catch (error) {
    return jsonError(502, `Profiles unavailable: ${(error as Error).message}`);
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "profiles.manage");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = CreateProfileSchema.safeParse(stringFields(await readJsonObject(request), ["name"]));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field, success: false });
  }
  const result = await createProfile(context.db, parsed.data.name, user.username);
  if (!result.ok) return jsonError(result.status, result.error, { success: false });
  return json(result.value, { status: 201, headers: NO_STORE });
}
