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
    <Screen title="Exchanges">
      <NotBuiltYet what="Connecting a Coinbase account, testing it and toggling sandbox mode arrive with the Coinbase connector." />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Exchanges · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
