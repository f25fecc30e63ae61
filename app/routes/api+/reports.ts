// GET /api/reports?type=&status=&limit=: the reports, newest first (docs/spec/api.md#shapes Report).
// POST /api/reports {type, format, startDate, endDate, profileId, productId, year}: stores the
// request and queues its job in one transaction; 201 with the report (status pending).
import { type ActionFunctionArgs, type LoaderFunctionArgs, json } from "@remix-run/node";
import { REPORT_STATUSES, REPORT_TYPES, ReportFormSchema, reportFormFromBody } from "#app/core/schemas/reports.ts";
import { listReportViews, requestReport } from "#app/services/reports.server.ts";
import { firstIssue, jsonError, NO_STORE, readJsonObject, queryInt } from "#app/utils/api.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const url = new URL(request.url);
  const type = url.searchParams.get("type") || undefined;
  const status = url.searchParams.get("status") || undefined;
  if (type && type !== "all" && !(REPORT_TYPES as readonly string[]).includes(type))
    return jsonError(400, `Unknown report type ${type}`);
  if (status && status !== "all" && !(REPORT_STATUSES as readonly string[]).includes(status))
    return jsonError(400, `Unknown report status ${status}`);
  const reports = await listReportViews(context.db, {
    type: type === "all" ? undefined : type,
    status: status === "all" ? undefined : status,
    limit: queryInt(url.searchParams, "limit", 100, 1, 500),
  });
  return json(reports, { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "reports.generate");
  if (request.method !== "POST") return jsonError(405, `Method ${request.method} not allowed`);
  const parsed = ReportFormSchema.safeParse(reportFormFromBody(await readJsonObject(request)));
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error.issues);
    return jsonError(400, message, { field, success: false });
  }
  const result = await requestReport(context.db, parsed.data, user);
  if (!result.ok) return jsonError(result.status, result.error, { field: result.field, success: false });
  return json(result.value, { status: 201, headers: NO_STORE });
}
