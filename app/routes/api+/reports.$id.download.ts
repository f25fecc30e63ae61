// GET /api/reports/{id}/download: the ready report's file, as an attachment with its name
// and content type (text/csv or application/pdf). 404 unknown, 409 not ready or failed,
// 410 expired (JSON errors).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { downloadReport } from "#app/services/reports.server.ts";
import { jsonError } from "#app/utils/api.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const result = await downloadReport(context.db, params.id ?? "");
  if (!result.ok) return jsonError(result.status, result.error);
  const ascii = result.fileName.replace(/[^\w.-]/g, "_");
  return new Response(result.data as unknown as BodyInit, {
    headers: {
      "Content-Type": result.contentType,
      "Content-Length": String(result.data.byteLength),
      "Content-Disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(result.fileName)}`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

export async function action({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return jsonError(405, `Method ${request.method} not allowed`);
}
