// GET /api/health (public): {status, systemStatus: [{component, status, message}], checkedAt}.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getSystemStatus } from "#app/services/health.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ context }: LoaderFunctionArgs) {
  return json(await getSystemStatus(context), { headers: NO_STORE });
}
