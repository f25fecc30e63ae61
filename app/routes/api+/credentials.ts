// GET /api/credentials (admin): the trading credentials' summary { apiKey (masked),
// hasSecret, sandbox } plus where they come from and their last test. Never a secret.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getCredentialsSummary } from "#app/services/exchange-connections.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  return json(await getCredentialsSummary(context.db, context.config), { headers: NO_STORE });
}
