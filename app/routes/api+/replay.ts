// POST /api/replay (docs/spec/api.md "What-if replay", docs/decisions/047-replay.md): replays
// the recorded alerts of a period with up to three rule sets and answers the figures beside
// what really happened. Any signed-in role (it only reads; docs/spec/roles.md). 400 with the
// field for a bad request, 401 without a login, 405 for GET.
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { ReplayRequestSchema } from "#app/core/schemas/replay.ts";
import { ReplayInputError, runReplay } from "#app/services/replay.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { NO_STORE, firstIssue, getNotAllowedLoader, jsonError, readJsonObject } from "#app/utils/api.server.ts";

export const loader = getNotAllowedLoader(requireUser);

export async function action({ request, context }: ActionFunctionArgs) {
  await requireUser(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = ReplayRequestSchema.safeParse(await readJsonObject(request));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field });
  }
  try {
    return json(await runReplay(context.db, parsed.data), { headers: NO_STORE });
  } catch (error) {
    if (error instanceof ReplayInputError) return jsonError(400, error.message, { field: "strategy" });
    throw error;
  }
}
