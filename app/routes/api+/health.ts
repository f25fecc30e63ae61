// GET /api/health (public): {status, systemStatus: [{component, status, message}], checkedAt}.
// Anonymous callers (uptime monitors, strangers) get each component's status only: the
// messages tell the trading state (emergency stop, paper or live, worker count, database)
// and are for signed-in users the session policy lets through (issues 10 and 23: an account
// refused for lack of a required 2FA gets the anonymous view).
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getSystemStatus } from "#app/services/health.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";
import { getUserWithinPolicy } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [health, user] = await Promise.all([getSystemStatus(context), getUserWithinPolicy(request, context)]);
  if (user) return json(health, { headers: NO_STORE });
  return json(
    { ...health, systemStatus: health.systemStatus.map(({ component, status }) => ({ component, status })) },
    { headers: NO_STORE },
  );
}
