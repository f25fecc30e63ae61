// Futures Positions (docs/spec/screens.md): server-rendered list, then polled and live-updated on the
// client (app/components/positions/positions-screen.tsx). The action is the no-JavaScript
// path of the Close button (intent=close, symbol), and the Open orders and Flatten all forms
// (intent cancel-order + id, cancel-all, flatten): the same services as the API, then a
// redirect back with a toast.
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { FlattenConfirmPanel } from "#app/components/positions/flatten-confirm.tsx";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import type { DriftItem } from "#app/components/positions/drift-alarms.tsx";
import type { OpenOrder } from "#app/components/positions/open-orders.tsx";
import { type PositionItem, PositionsScreen } from "#app/components/positions/positions-screen.tsx";
import type { Toast } from "#app/core/schemas/toast.ts";
import { listDrifts, requestDriftResolution } from "#app/services/drifts.server.ts";
import { cancelAllOrders, cancelOrderBy, listOpenOrders } from "#app/services/orders.server.ts";
import {
  editPosition,
  flattenAll,
  flattenToast,
  listPositionViews,
  positionEditView,
  requestClosePosition,
} from "#app/services/positions.server.ts";
import { type PositionEditError, PositionEditForm } from "#app/components/positions/position-edit-form.tsx";
import {
  PartialCloseSchema,
  PositionEditSchema,
  parseEditField,
  positionEditFromForm,
} from "#app/core/schemas/position-edit.ts";
import { firstIssue } from "#app/utils/api.server.ts";
import { StrategyFilter } from "#app/components/strategies/strategy-filter.tsx";
import { strategyNames } from "#app/services/strategies.server.ts";
import { sharedRead } from "#app/services/shared-read.server.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";
import { safeRedirect } from "#app/utils/safe-redirect.ts";
import { can } from "#app/core/auth/permissions.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const url = new URL(request.url);
  const strategy = (url.searchParams.get("strategy") ?? "").slice(0, 40);
  // ?edit=<id>: the edit form of one open position (decision 048), for whoever may trade.
  const editId = (url.searchParams.get("edit") ?? "").slice(0, 64);
  const view =
    editId && can(user.role, "positions.close") ? await positionEditView(context.db, editId).catch(() => null) : null;
  // Opened from a mark of the position's price chart: on that field, and back to the chart after a save.
  const back = url.searchParams.get("back");
  const edit = view
    ? {
        ...view,
        focus: parseEditField(url.searchParams.get("focus")),
        back: back ? safeRedirect(back, "") || null : null,
      }
    : null;
  try {
    // Pages asking at about the same time share one read (decision 037): everyone sees the same positions.
    const [positions, orders, drifts, strategies] = await sharedRead(context.db, `positions-page|${strategy}`, () =>
      Promise.all([
        listPositionViews(context.db, {
          maxAgeMs: context.config.PRICE_MAX_AGE_SECONDS * 1000,
          strategy: strategy || undefined,
        }),
        listOpenOrders(context.db),
        listDrifts(context.db),
        strategyNames(context.db),
      ]),
    );
    return json({ positions, orders, drifts, loadError: null as string | null, strategy, strategies, edit });
  } catch (error) {
    console.warn(`[positions] loader failed: ${(error as Error).message}`);
    return json({
      positions: null,
      orders: null,
      drifts: null,
      loadError: "Unable to load positions",
      strategy,
      strategies: [] as { id: string; name: string }[],
      edit,
    });
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  // A body that is not a form (JSON, broken multipart) is an unknown action (400), not a 500.
  const form = await request.formData().catch(() => new FormData());
  const intent = form.get("intent");
  // Open orders' forms also post from the dashboard and Manual Trading, and go back there.
  const returnTo = safeRedirect(form.get("back"), "/positions");
  const back = (toast: Toast) => redirectWithToast(context, returnTo, toast);
  if (intent === "close") {
    const user = await requirePermission(request, context, "positions.close");
    const symbol = String(form.get("symbol") ?? "");
    const result = await requestClosePosition(context.db, symbol, user.username).catch((error: Error) => ({
      ok: false as const,
      error: error.message,
    }));
    return back(
      result.ok
        ? { title: "Position Closed", description: `Successfully closed position for ${symbol}` }
        : {
            title: "Error Closing Position",
            description: `Failed to close position for ${symbol}: ${result.error}`,
            variant: "destructive",
          },
    );
  }
  // The edit form (decision 048): without JavaScript a plain post; with it the same post, checked in the browser first.
  if (intent === "edit") {
    const user = await requirePermission(request, context, "positions.close");
    const id = String(form.get("id") ?? "");
    const parsed = PositionEditSchema.safeParse(positionEditFromForm(form));
    const result = parsed.success
      ? await editPosition(context.db, id, parsed.data, user.username)
      : {
          ok: false as const,
          status: 400 as const,
          ...(({ message, field }) => ({ error: message, field }))(firstIssue(parsed.error.issues)),
        };
    if (!result.ok) {
      return json(
        {
          editError: {
            id,
            error: result.error,
            field: result.field ?? null,
            values: Object.fromEntries([...form].filter(([, v]) => typeof v === "string")) as Record<string, string>,
            tpPrices: form.getAll("tpPrice").map(String),
            tpCloses: form.getAll("tpClose").map(String),
          },
        },
        { status: result.status, headers: { "Cache-Control": "no-store" } },
      );
    }
    return redirectWithToast(
      context,
      safeRedirect(form.get("back"), "/positions"),
      result.changed
        ? { title: "Position Updated", description: result.message }
        : { title: "Nothing Changed", description: result.message },
    );
  }
  if (intent === "close-part") {
    const user = await requirePermission(request, context, "positions.close");
    const symbol = String(form.get("symbol") ?? "");
    const amount = String(form.get("amount") ?? "").trim();
    const unit = form.get("unit") === "percent" ? "percent" : "quantity";
    const parsed = PartialCloseSchema.safeParse({ [unit]: amount });
    const result = parsed.success
      ? await requestClosePosition(context.db, symbol, user.username, parsed.data).catch((error: Error) => ({
          ok: false as const,
          error: error.message,
        }))
      : { ok: false as const, error: firstIssue(parsed.error.issues).message };
    return back(
      result.ok
        ? { title: "Close Queued", description: result.message }
        : {
            title: "Error Closing Position",
            description: `Failed to close position for ${symbol}: ${result.error}`,
            variant: "destructive",
          },
    );
  }
  if (intent === "cancel-order") {
    const user = await requirePermission(request, context, "orders.cancel");
    const result = await cancelOrderBy(context.db, String(form.get("id") ?? ""), user.username);
    if (!result.ok) return back({ title: "Cancel Failed", description: result.error, variant: "destructive" });
    return back(
      result.status === "cancelled"
        ? { title: "Order Cancelled", description: "The order was cancelled and its margin released" }
        : result.done
          ? {
              title: "Order Not Cancelled",
              description: `The order was ${result.status} before the cancel arrived`,
              variant: "destructive",
            }
          : {
              title: "Cancel Requested",
              description: "The exchange has not answered yet: the list updates when it does",
            },
    );
  }
  if (intent === "cancel-all") {
    const user = await requirePermission(request, context, "orders.cancel");
    const result = await cancelAllOrders(context.db, user.username);
    return back({
      title: "Orders Cancelled",
      description: `${result.cancelled} order${result.cancelled === 1 ? "" : "s"} cancelled${result.done ? "" : "; others are still being cancelled"}`,
    });
  }
  if (intent === "flatten") {
    const user = await requirePermission(request, context, "positions.close");
    // Unconfirmed (no JavaScript, or a forged post): nothing is flattened; the page asks first (decision 041).
    if (form.get("confirm") !== "1")
      return json({ confirm: "flatten" as const, back: returnTo }, { headers: { "Cache-Control": "no-store" } });
    const result = await flattenAll(context.db, user.username);
    return back(flattenToast(result));
  }
  if (intent === "drift-adopt" || intent === "drift-close") {
    const user = await requirePermission(request, context, "drifts.resolve");
    const action = intent === "drift-close" ? "close" : "adopt";
    const result = await requestDriftResolution(context.db, String(form.get("id") ?? ""), action, user.username);
    if (!result.ok) return back({ title: "Drift Not Resolved", description: result.error, variant: "destructive" });
    return back(
      !result.done
        ? {
            title: "Drift Resolution Queued",
            description: "The worker has not finished yet: the alarm goes when it has",
          }
        : result.drift.status === "resolved"
          ? {
              title: action === "close" ? "Drift Adopted and Closed" : "Drift Adopted",
              description: result.drift.resolution ?? `${result.drift.symbol} now matches the exchange`,
            }
          : {
              title: "Drift Not Resolved",
              description: `The worker could not resolve the ${result.drift.symbol} drift: see the activity log`,
              variant: "destructive",
            },
    );
  }
  await requireUser(request, context);
  return json({ error: "Unknown action" }, { status: 400 });
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const posted = useActionData<typeof action>();
  const confirm = posted && "confirm" in posted ? posted : null;
  const editError = posted && "editError" in posted ? (posted.editError as PositionEditError) : null;
  return (
    <>
      {data.edit ? (
        <PositionEditForm
          key={data.edit.id}
          position={data.edit}
          posted={editError}
          focus={data.edit.focus}
          back={data.edit.back}
        />
      ) : null}
      {confirm ? (
        <FlattenConfirmPanel
          intent="flatten"
          action="/positions"
          cancelHref={confirm.back}
          fields={{ back: confirm.back }}
        />
      ) : null}
      <PositionsScreen
        key={data.strategy}
        initial={data.positions as unknown as PositionItem[] | null}
        loadError={data.loadError}
        orders={data.orders as unknown as OpenOrder[] | null}
        drifts={data.drifts as unknown as DriftItem[] | null}
        strategy={data.strategy || undefined}
        toolbar={
          <StrategyFilter strategies={data.strategies} value={data.strategy} testId="positions-strategy-filter" />
        }
      />
    </>
  );
}

export const meta: MetaFunction = () => [{ title: "Futures Positions · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
