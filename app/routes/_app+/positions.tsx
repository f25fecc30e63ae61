// Futures Positions (SPEC.md §2): server-rendered list, then polled and live-updated on the
// client (app/components/positions/positions-screen.tsx). The action is the no-JavaScript
// path of the Close button: intent=close, symbol → the same close as the API, then a
// redirect back with a toast.
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { type PositionItem, PositionsScreen } from "#app/components/positions/positions-screen.tsx";
import { listPositionViews, requestClosePosition } from "#app/services/positions.server.ts";
import { requireUser } from "#app/utils/auth.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  try {
    return json({ positions: await listPositionViews(context.db), loadError: null as string | null });
  } catch (error) {
    console.warn(`[positions] loader failed: ${(error as Error).message}`);
    return json({ positions: null, loadError: "Unable to load positions" });
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  const form = await request.formData();
  if (form.get("intent") !== "close") return json({ error: "Unknown action" }, { status: 400 });
  const symbol = String(form.get("symbol") ?? "");
  const result = await requestClosePosition(context.db, symbol, user.username).catch(() => null);
  const toast = result?.ok
    ? { title: "Position Closed", description: `Successfully closed position for ${symbol}` }
    : { title: "Error Closing Position", description: `Failed to close position for ${symbol}`, variant: "destructive" as const };
  return redirectWithToast(context, "/positions", toast);
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  return <PositionsScreen initial={data.positions as unknown as PositionItem[] | null} loadError={data.loadError} />;
}

export const meta: MetaFunction = () => [{ title: "Futures Positions · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
