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
    <Screen title="Profiles">
      <NotBuiltYet what="Trading profiles with Create Profile, Transfer Funds and Delete Profile arrive with the exchange connector." />
    </Screen>
  );
}

export const meta: MetaFunction = () => [{ title: "Profiles · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
