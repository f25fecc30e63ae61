// POST /api/profiles/transfer {fromProfileId, toProfileId, currency, amount}: moves funds
// between two profiles in one transaction. 200 {success, message}; 400 for a missing or bad
// field, 404 for an unknown profile, 409 when the source lacks the funds.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { TransferSchema, stringFields } from "#app/core/schemas/profiles.ts";
import { transferFunds } from "#app/services/profiles.server.ts";
import { firstIssue, getNotAllowedLoader, jsonError, NO_STORE, readJsonObject } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "profiles.manage");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const body = stringFields(await readJsonObject(request), ["fromProfileId", "toProfileId", "currency", "amount"]);
  const parsed = TransferSchema.safeParse(body);
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field, success: false });
  }
  const result = await transferFunds(context.db, parsed.data, user.username);
  if (!result.ok) return jsonError(result.status, result.error, { success: false });
  return json({ success: true, message: result.value.message }, { headers: NO_STORE });
}
