import { type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { NotBuiltYet, Screen } from "#app/components/screen.tsx";
import { requireUser } from "#app/utils/auth.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return null;
}

export default function Page() {
  return (
    <Screen title="Activity Logs">
      <NotBuiltYet what="The activity log list (signals, orders, logins and system events) arrives with the dashboard." />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Activity Logs · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
