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
    <Screen title="Futures Positions">
      <NotBuiltYet what="Open perpetual positions with their take-profit, stop-loss, break-even and trailing-stop protection arrive with the rules engine." />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Futures Positions · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
