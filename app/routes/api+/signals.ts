// GET /api/signals?limit=10: newest first.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { requireUser } from "#app/utils/auth.server.ts";
import { listSignals } from "#db/queries/signals.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const limit = Number(new URL(request.url).searchParams.get("limit") ?? 10);
  return json(await listSignals(context.db, { limit: Number.isFinite(limit) ? limit : 10 }));
}
