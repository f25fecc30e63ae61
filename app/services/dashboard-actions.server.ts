// The dashboard's form posts (emergency stop, reset, manual order), shared by / and
// /dashboard; /manual-trading uses the same action for its place-order intent only. With
// JavaScript they answer JSON (the page shows a toast); without, they redirect back with a
// flash toast (Post/Redirect/Get).
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, json } from "@remix-run/node";
import { ManualOrderSchema } from "#app/core/schemas/manual-order.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { requireUser } from "#app/utils/auth.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";
import { placeManualOrder } from "./orders.server.ts";
import { activateEmergencyStop, resetEmergencyStop } from "./trading.server.ts";

export type DashboardIntent = "emergency-stop" | "reset-emergency-stop" | "place-order";
const ALL_INTENTS: readonly DashboardIntent[] = ["emergency-stop", "reset-emergency-stop", "place-order"];

/** `intents`: the intents this page accepts (every one by default); any other is a 400. */
export async function dashboardAction({ request, context }: ActionFunctionArgs, options: { intents?: readonly DashboardIntent[] } = {}) {
  const user = await requireUser(request, context);
  const formData = await request.formData();
  const posted = formData.get("intent");
  const intent = (options.intents ?? ALL_INTENTS).includes(posted as DashboardIntent) ? posted : null;
  const back = new URL(request.url).pathname;
  const wantsJson = formData.get("_js") === "1";
  const answer = async (toast: Toast, status = 200, extra: Record<string, unknown> = {}) =>
    wantsJson ? json({ toast, ...extra }, { status }) : redirectWithToast(context, back, toast);

  if (intent === "emergency-stop") {
    try {
      const result = await activateEmergencyStop(context.db, user.username);
      return answer({ title: "Emergency Stop Activated", description: result.message, variant: "destructive" });
    } catch {
      return answer({ title: "Emergency Stop Failed", description: "Failed to activate emergency stop", variant: "destructive" }, 500);
    }
  }
  if (intent === "reset-emergency-stop") {
    try {
      const result = await resetEmergencyStop(context.db, user.username);
      return answer({ title: "Emergency Stop Reset", description: result.message });
    } catch {
      return answer({ title: "Reset Failed", description: "Failed to reset emergency stop", variant: "destructive" }, 500);
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
      return answer({ title: "Trade Failed", description: placed.error || "Trade execution failed", variant: "destructive" }, placed.status, {
        result: submission.reply({ formErrors: [placed.error] }),
      });
    }
    return answer(
      { title: "Trade Executed", description: `${order.side.toUpperCase()} order for ${order.symbol} has been placed successfully` },
      200,
      { result: submission.reply({ resetForm: true }), tradeId: placed.trade.id },
    );
  }
  return json({ error: "Unknown action" }, { status: 400 });
}
