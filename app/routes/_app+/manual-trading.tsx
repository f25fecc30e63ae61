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
    <Screen title="Manual Trading">
      <NotBuiltYet what="The Place Order card (quantity, USD or percentage amounts, leverage 1-10x, Cross or Isolated margin) arrives with the order pipeline." />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Manual Trading · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
