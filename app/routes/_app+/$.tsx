// Any path no other route claims: '404 Page Not Found' inside the shell (after login).
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary, NotFound } from "#app/components/error-boundary.tsx";
import { requireUser } from "#app/services/sessions.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  throw new Response("Not Found", { status: 404 });
}

export default function NotFoundPage() {
  return <NotFound />;
}

export const meta: MetaFunction = () => [{ title: "404 Page Not Found · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
