import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { FlattenConfirmPanel } from "#app/components/positions/flatten-confirm.tsx";
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
  const posted = useActionData<typeof action>();
  const { pathname } = useLocation();
  // "Flatten all" / "Stop and flatten" posted without JavaScript: the action asks first (decision 041).
  const confirm = posted && "confirm" in posted ? posted.confirm : null;
  return (
    <>
      {/* The confirmed post goes to /dashboard, this route's action at a path of its own (a post to "/" would reach the layout). */}
      {confirm ? <FlattenConfirmPanel intent={confirm} action="/dashboard" cancelHref={pathname} /> : null}
      <DashboardScreen data={useLoaderData<typeof loader>()} />
    </>
  );
}

export const meta: MetaFunction = () => [{ title: "Dashboard · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
