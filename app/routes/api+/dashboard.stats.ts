// GET /api/dashboard/stats: { stats: { activeTrades, todayPnL, totalSignals, systemHealth }, systemStatus }.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { getDashboardStats } from "#app/services/dashboard.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await getDashboardStats(context));
}
