// /trading-rules: the Trading Rules screen (docs/spec/screens.md, api.md#validation, api.md#errors), admins only (loader AND
// action). The form posts here: parsed with the form's Zod schema (percent → fraction,
// clamping, the take-profit total), then saved by updateTradingConfig, which validates the
// merged config again. With JavaScript (`_js=1`) the answer is JSON with a toast; without,
// a redirect with a flash toast, or the page again (400) with the messages by the fields.
// Apply Rules to Existing Positions and Reset Statistics post intent=apply-rules|reset-stats
// without JavaScript: first answered with a confirmation panel (?confirm=<intent>), then,
// with confirmed=yes, run by the same services as their API routes.
import {
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  json,
  redirect,
} from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { firstFormError, parseTradingRulesForm } from "#app/core/schemas/trading-rules-form.ts";
import {
  CONFIRM_INTENTS,
  type ConfirmIntent,
  RESET_DONE,
  TradingRulesScreen,
  appliedText,
} from "#app/components/trading-rules/trading-rules-screen.tsx";
import { applyRulesToOpenPositions, resetStatistics } from "#app/services/positions.server.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { updateTradingConfig } from "#app/services/trading.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";
import { getTradingConfig } from "#app/services/trading.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  const asked = new URL(request.url).searchParams.get("confirm");
  const confirm = asked && asked in CONFIRM_INTENTS ? (asked as ConfirmIntent) : null;
  return json({ config: await getTradingConfig(context.db), confirm }, { headers: NO_STORE });
}

const SAVED_TOAST: Toast = {
  title: "Trading Rules Saved",
  description: "Your trading rules have been updated successfully",
};
const failed = (description: string): Toast => ({ title: "Error Saving Rules", description, variant: "destructive" });

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  let formData: FormData;
  try {
    formData = await request.formData();
  } catch {
    return json({ toast: failed("The form could not be read") }, { status: 400, headers: NO_STORE });
  }
  const intent = String(formData.get("intent") ?? "");
  if (intent in CONFIRM_INTENTS) {
    if (formData.get("confirmed") !== "yes") return redirect(`/trading-rules?confirm=${intent}`, { headers: NO_STORE });
    if (intent === "apply-rules") {
      const result = await applyRulesToOpenPositions(context.db, user.username);
      return redirectWithToast(
        context,
        "/trading-rules",
        { title: "Rules Applied", description: appliedText(result.appliedCount, result.totalPositions) },
        { headers: NO_STORE },
      );
    }
    const reset = await resetStatistics(context.db, user.username);
    if (!reset.success)
      return redirectWithToast(
        context,
        "/trading-rules",
        { title: "Reset Failed", description: reset.error, variant: "destructive" },
        { headers: NO_STORE },
      );
    return redirectWithToast(context, "/trading-rules", RESET_DONE, { headers: NO_STORE });
  }
  const wantsJson = formData.get("_js") === "1";
  const submission = parseTradingRulesForm(formData);
  if (submission.status !== "success") {
    const message = firstFormError(submission.error as Record<string, string[] | null>);
    return json({ result: submission.reply(), toast: failed(message) }, { status: 400, headers: NO_STORE });
  }
  let saved: Awaited<ReturnType<typeof updateTradingConfig>>;
  try {
    saved = await updateTradingConfig(context.db, submission.value, user.username);
  } catch (error) {
    console.warn("saving the trading rules failed", error);
    return json(
      {
        result: submission.reply({ formErrors: ["The rules could not be saved: please try again"] }),
        toast: failed("Failed to save trading rules"),
      },
      { status: 500, headers: NO_STORE },
    );
  }
  if (!saved.ok) {
    return json(
      { result: submission.reply({ formErrors: [saved.error] }), toast: failed(saved.error) },
      { status: 400, headers: NO_STORE },
    );
  }
  if (wantsJson)
    return json(
      { result: submission.reply({ resetForm: true }), toast: SAVED_TOAST, config: saved.config },
      { headers: NO_STORE },
    );
  return redirectWithToast(context, "/trading-rules", SAVED_TOAST, { headers: NO_STORE });
}

export const headers: HeadersFunction = () => NO_STORE;

export default function Page() {
  const { config, confirm } = useLoaderData<typeof loader>();
  return <TradingRulesScreen config={config} confirm={confirm} />;
}

export const meta: MetaFunction = () => [{ title: "Trading Rules · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
