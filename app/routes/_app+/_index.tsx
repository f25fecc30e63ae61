import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { DashboardScreen } from "#app/components/dashboard/dashboard-screen.tsx";
import { dashboardAction } from "#app/services/dashboard-actions.server.ts";
import { loadDashboard } from "#app/services/dashboard-data.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  return json(await loadDashboard(request, context, user));
}

export async function action(args: ActionFunctionArgs) {
  return dashboardAction(args);
}

export default function Page() {
  return <DashboardScreen data={useLoaderData<typeof loader>()} />;
}

export const meta: MetaFunction = () => [{ title: "Dashboard · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
