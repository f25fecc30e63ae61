// The dashboard's form posts (emergency stop, reset, manual order), shared by / and
// /dashboard; /manual-trading uses the same action for its place-order intent only. With
// JavaScript they answer JSON (the page shows a toast); without, they redirect back with a
// flash toast (Post/Redirect/Get).
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { ManualOrderSchema } from "#app/core/schemas/manual-order.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import type { Permission } from "#app/core/auth/permissions.ts";
import { requirePermission, requireUser } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";
import type { Trade } from "#db/queries/trades.ts";
import { awaitOrderOutcome, placeManualOrder } from "./orders.server.ts";
import { flattenAll, flattenToast } from "./positions.server.ts";
import { switchEmergencyStop } from "./trading.server.ts";

export type DashboardIntent =
  | "emergency-stop"
  | "emergency-stop-flatten"
  | "reset-emergency-stop"
  | "place-order"
  | "flatten";
const ALL_INTENTS: readonly DashboardIntent[] = [
  "emergency-stop",
  "emergency-stop-flatten",
  "reset-emergency-stop",
  "place-order",
  "flatten",
];
/** What each intent needs (app/core/auth/permissions.ts): anyone may stop, only an admin resumes, traders order. */
const INTENT_PERMISSION: Record<DashboardIntent, Permission> = {
  "emergency-stop": "emergency.activate",
  // Stopping is everyone's; flattening sends closing orders, as Close does.
  "emergency-stop-flatten": "positions.close",
  "reset-emergency-stop": "emergency.reset",
  "place-order": "orders.place",
  flatten: "positions.close",
};

/** `intents`: the intents this page accepts (every one by default); any other is a 400. */
export async function dashboardAction(
  { request, context }: ActionFunctionArgs,
  options: { intents?: readonly DashboardIntent[] } = {},
) {
  await requireUser(request, context);
  // A body that is not a form (JSON, broken multipart) is an unknown action (400), not a 500.
  const formData = await request.formData().catch(() => new FormData());
  const posted = formData.get("intent");
  const intent = (options.intents ?? ALL_INTENTS).includes(posted as DashboardIntent)
    ? (posted as DashboardIntent)
    : null;
  if (!intent) return json({ error: "Unknown action" }, { status: 400 });
  const user = await requirePermission(request, context, INTENT_PERMISSION[intent]);
  const back = new URL(request.url).pathname;
  const wantsJson = formData.get("_js") === "1";
  const answer = async (toast: Toast, status = 200, extra: Record<string, unknown> = {}) =>
    wantsJson ? json({ toast, ...extra }, { status }) : redirectWithToast(context, back, toast);

  if (intent === "emergency-stop") {
    try {
      const result = await switchEmergencyStop(context.db, true, user.username);
      return answer({ title: "Emergency Stop Activated", description: result.message, variant: "destructive" });
    } catch {
      return answer(
        { title: "Emergency Stop Failed", description: "Failed to activate emergency stop", variant: "destructive" },
        500,
      );
    }
  }
  if (intent === "flatten" || intent === "emergency-stop-flatten") {
    // Unconfirmed (no JavaScript, or a forged post): nothing is stopped or flattened; the page
    // answers the confirmation, whose button posts again with confirm=1 (decision 041).
    if (formData.get("confirm") !== "1") return json({ confirm: intent }, { headers: { "Cache-Control": "no-store" } });
    let stopped = "";
    if (intent === "emergency-stop-flatten") {
      await switchEmergencyStop(context.db, true, user.username);
      stopped = "Emergency stop active. ";
    }
    const result = await flattenAll(context.db, user.username);
    return answer(flattenToast(result, stopped));
  }
  if (intent === "reset-emergency-stop") {
    try {
      const result = await switchEmergencyStop(context.db, false, user.username);
      return answer({ title: "Emergency Stop Reset", description: result.message });
    } catch {
      return answer(
        { title: "Reset Failed", description: "Failed to reset emergency stop", variant: "destructive" },
        500,
      );
    }
  }
  if (intent === "place-order") {
    const submission = parseWithZod(formData, { schema: ManualOrderSchema });
    if (submission.status !== "success") {
      // Field messages show beside the fields (with or without JavaScript).
      return json({ result: submission.reply(), toast: null }, { status: 400 });
    }
    const order = submission.value;
    const placed = await placeManualOrder(context.db, order, user.username);
    if (!placed.ok) {
      return answer(
        { title: "Trade Failed", description: placed.error || "Trade execution failed", variant: "destructive" },
        placed.status,
        {
          result: submission.reply({ formErrors: [placed.error] }),
        },
      );
    }
    // Say what really happened (issue 11): 'Trade Executed' only for a fill.
    const outcome = await awaitOrderOutcome(context.db, placed.trade);
    const trade = outcome.trade;
    const failed = trade.status === "failed" || trade.status === "cancelled";
    return answer(outcomeToast(trade, outcome.workerRunning), 200, {
      result: failed
        ? submission.reply({ formErrors: [trade.errorMessage ?? "Trade execution failed"] })
        : submission.reply({ resetForm: true }),
      tradeId: trade.id,
      tradeStatus: trade.status,
    });
  }
  return json({ error: "Unknown action" }, { status: 400 });
}

/** The toast for a manual order's outcome: SPEC's 'Trade Executed' only when it filled. */
export function outcomeToast(trade: Trade, workerRunning: boolean): Toast {
  const side = trade.side.toUpperCase();
  if (trade.status === "executed" || trade.status === "completed") {
    return { title: "Trade Executed", description: `${side} order for ${trade.symbol} has been placed successfully` };
  }
  if (trade.status === "failed" || trade.status === "cancelled") {
    return {
      title: "Trade Failed",
      description: trade.errorMessage || "Trade execution failed",
      variant: "destructive",
    };
  }
  if (trade.orderId && trade.orderType === "limit") {
    return {
      title: "Limit order resting",
      description: `${side} ${trade.quantity} ${trade.symbol} @ ${trade.price} waits on the exchange: see Open orders on Positions`,
    };
  }
  if (trade.orderId) {
    return {
      title: "Order sent",
      description: `${side} order for ${trade.symbol} is at the exchange: you will see here when it fills`,
    };
  }
  return {
    title: "Order queued",
    description: workerRunning
      ? `${side} order for ${trade.symbol} is queued: you will see here when it fills or fails`
      : `${side} order for ${trade.symbol} is queued: no worker is running, it is sent when one starts`,
  };
}
