import { type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { DashboardScreen } from "#app/components/screens/dashboard.tsx";
import { requireUser } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return null;
}

export default function Page() {
  return <DashboardScreen />;
}

export const meta: MetaFunction = () => [{ title: "Dashboard · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
