// /reports: the Reports screen (docs/spec/screens.md, screens.md#states, api.md#validation, api.md#errors). The action is the Generate Report
// dialog's: the same request as POST /api/reports (report row + job in one transaction);
// JSON and a toast with JavaScript (`_js=1`), a redirect with a flash toast without.
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { ReportsScreen } from "#app/components/reports/reports-screen.tsx";
import { REPORT_STATUSES, REPORT_TYPES, REPORT_TYPE_LABELS, ReportFormSchema } from "#app/core/schemas/reports.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { listProfileViews } from "#app/services/profiles.server.ts";
import { listReportViews, requestReport } from "#app/services/reports.server.ts";
import { requireUser, requirePermission } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const url = new URL(request.url);
  const type = url.searchParams.get("type") ?? "all";
  const status = url.searchParams.get("status") ?? "all";
  const filters = {
    type: (REPORT_TYPES as readonly string[]).includes(type) ? type : "all",
    status: (REPORT_STATUSES as readonly string[]).includes(status) ? status : "all",
  };
  const [reports, profiles] = await Promise.all([
    listReportViews(context.db, {
      type: filters.type === "all" ? undefined : filters.type,
      status: filters.status === "all" ? undefined : filters.status,
    }),
    // The profiles the reports can be about: the paper ones, or Coinbase's with a passphrase key.
    listProfileViews(context.db)
      .then((r) => r.profiles)
      .catch(() => []),
  ]);
  return json(
    {
      reports,
      filters,
      profiles: profiles.map((p) => ({ id: p.id, name: p.name })),
      dialog: url.searchParams.get("dialog") === "generate",
    },
    { headers: NO_STORE },
  );
}

const failed = (description: string): Toast => ({
  title: "Failed to create report",
  description,
  variant: "destructive",
});

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requirePermission(request, context, "reports.generate");
  const formData = await request.formData();
  const wantsJson = formData.get("_js") === "1";
  const submission = parseWithZod(formData, { schema: ReportFormSchema });
  if (submission.status !== "success") return json({ result: submission.reply() }, { status: 400, headers: NO_STORE });
  let result: Awaited<ReturnType<typeof requestReport>>;
  try {
    result = await requestReport(context.db, submission.value, user);
  } catch (error) {
    console.warn(`[reports] request failed: ${(error as Error).message}`);
    result = { ok: false, status: 500, error: "Failed to create report" };
  }
  if (!result.ok) {
    return json(
      {
        result: submission.reply({
          formErrors: [result.error],
          ...(result.field ? { fieldErrors: { [result.field]: [result.error] } } : {}),
        }),
        toast: failed(result.error),
      },
      { status: result.status, headers: NO_STORE },
    );
  }
  const toast: Toast = {
    title: "Report Requested",
    description: `Your ${REPORT_TYPE_LABELS[submission.value.type].toLowerCase()} report (${submission.value.format.toUpperCase()}) is being generated`,
  };
  if (wantsJson)
    return json(
      { result: submission.reply({ resetForm: true }), toast, done: true, report: result.value },
      { headers: NO_STORE },
    );
  return redirectWithToast(context, "/reports", toast, { headers: NO_STORE });
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  return (
    <ReportsScreen
      key={data.dialog ? "dialog" : "list"}
      initial={data.reports}
      filters={data.filters}
      profiles={data.profiles}
      initialDialog={data.dialog}
    />
  );
}

export const meta: MetaFunction = () => [{ title: "Reports · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
