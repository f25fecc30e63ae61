// /api/strategies (docs/decisions/027-strategies.md): GET (every signed-in role) the
// strategies with their webhook URL and alert message (the secret for admins only); POST
// (admin) creates one and answers it with its new secret (201).
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import {
  StrategyError,
  createStrategy,
  getStrategyView,
  listStrategyViews,
  parseStrategyInput,
} from "#app/services/strategies.server.ts";
import { jsonError, NO_STORE, readJsonObject } from "#app/utils/api.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  return json({ strategies: await listStrategyViews(request, context, user.role) }, { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "strategies.manage");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = parseStrategyInput(await readJsonObject(request));
  if (!parsed.success) return jsonError(400, parsed.error, parsed.field ? { field: parsed.field } : {});
  try {
    const { strategy } = await createStrategy(context.db, context.config.appSecret, parsed.input, user.username);
    return json(await getStrategyView(request, context, strategy.id, user.role), { status: 201, headers: NO_STORE });
  } catch (error) {
    if (error instanceof StrategyError)
      return jsonError(error.status, error.message, error.field ? { field: error.field } : {});
    throw error;
  }
}
