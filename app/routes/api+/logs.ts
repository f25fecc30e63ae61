// GET /api/logs?limit=20&type=&level=&beforeId=: newest first.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { queryInt } from "#app/utils/api.server.ts";
import { requireUser } from "#app/utils/auth.server.ts";
import { listActivityLogs } from "#db/queries/activity-logs.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const params = new URL(request.url).searchParams;
  const limit = queryInt(params, "limit", 20, 1, 1000);
  const beforeId = queryInt(params, "beforeId", 0, 0, Number.MAX_SAFE_INTEGER);
  return json(
    await listActivityLogs(context.db, {
      limit,
      type: params.get("type") || undefined,
      level: params.get("level") || undefined,
      beforeId: beforeId > 0 ? beforeId : undefined,
      viewer: user,
      strategy: params.get("strategy") || undefined,
    }),
  );
}
