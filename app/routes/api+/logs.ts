// GET /api/logs?limit=20&type=&level=&beforeId=: newest first.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { requireUser } from "#app/utils/auth.server.ts";
import { listActivityLogs } from "#db/queries/activity-logs.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const params = new URL(request.url).searchParams;
  const limit = Number(params.get("limit") ?? 20);
  const beforeId = Number(params.get("beforeId") ?? 0);
  return json(
    await listActivityLogs(context.db, {
      limit: Number.isFinite(limit) ? limit : 20,
      type: params.get("type") || undefined,
      level: params.get("level") || undefined,
      beforeId: Number.isFinite(beforeId) && beforeId > 0 ? beforeId : undefined,
    }),
  );
}
