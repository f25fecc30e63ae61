// GET /api/user: the logged-in user, or 401.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { requireUser } from "#app/services/sessions.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  return json(user, { headers: NO_STORE });
}
