// POST /api/emergency-stop (every logged-in user): answers { success, message }.
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { activateEmergencyStop } from "#app/services/trading.server.ts";
import { jsonError } from "#app/utils/api.server.ts";
import { requireUser } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return jsonError(405, "Method GET not allowed");
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  return json(await activateEmergencyStop(context.db, user.username));
}
