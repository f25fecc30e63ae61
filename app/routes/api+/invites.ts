// POST /api/invites {role} (JSON or form): 201 { code, role, expiresAt, url }, one use, 7 days.
// GET /api/invites: the open invitations. Admin only (issue 10).
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { InviteCreateSchema } from "#app/core/schemas/users.ts";
import { createInviteBy, listInvites } from "#app/services/users.server.ts";
import { NO_STORE, firstIssue, jsonError, publicOrigin, readBodyObject } from "#app/utils/api.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return json(await listInvites(context.db, publicOrigin(request, context)), { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = InviteCreateSchema.safeParse(await readBodyObject(request));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field });
  }
  const invite = await createInviteBy(context.db, user, parsed.data.role, publicOrigin(request, context));
  return json(
    { code: invite.code, role: invite.role, expiresAt: invite.expiresAt, url: invite.url },
    { status: 201, headers: NO_STORE },
  );
}
