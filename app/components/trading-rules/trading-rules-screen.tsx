// The Trading Rules screen (docs/spec/screens.md Trading Rules, screens.md#states, api.md#validation, api.md#errors, figures.md#defaults-and-limits), admins only.
// One form posted to the route's own action: with JavaScript through a fetcher (JSON answer,
// toast, instant validation with the same Zod schema as the server); without, as a plain
// HTML post (switches are real checkboxes; every conditional section is rendered, since
// nothing can hide it) answered by a redirect with a flash toast, or by the page again with
// the messages beside the fields. Switches are local form state until saved.
// The Emergency Stop button is the header's real control (issue 11); Apply Rules and Reset
// Statistics call POST /api/positions/apply-rules and POST /api/reset-stats after a
// confirmation (./maintenance-actions.tsx). The form is ./rules-form.tsx. See
// docs/decisions/007-trading-rules-form.md.
import type { SubmissionResult } from "@conform-to/react";
import { useActionData } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import type { TradingConfig } from "#app/core/schemas/trading-config.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { useApiQuery, useInvalidate } from "#app/utils/use-api-query.tsx";
import { EmergencyControl, useIntentFetcher } from "../dashboard/dashboard-header.tsx";
import { useEmergencyActive } from "../layout/emergency-banner.tsx";
import { ConfirmPanel } from "../confirm-action.tsx";
import { Screen } from "../screen.tsx";
import { CONFIRM_INTENTS, type ConfirmIntent } from "./maintenance-actions.tsx";
import { RulesForm } from "./rules-form.tsx";

export { CONFIRM_INTENTS, type ConfirmIntent, RESET_DONE, appliedText } from "./maintenance-actions.tsx";

export const TRADING_CONFIG_POLL_MS = 30_000;
/** What the action answers a fetcher (with JavaScript). */
export interface SaveAnswer {
  result?: SubmissionResult<string[]>;
  toast?: Toast | null;
  config?: TradingConfig;
}

const sameConfig = (a: TradingConfig, b: TradingConfig) => JSON.stringify(a) === JSON.stringify(b);

export function TradingRulesScreen({
  config: loaded,
  confirm,
}: {
  config: TradingConfig;
  confirm?: ConfirmIntent | null;
}) {
  const invalidate = useInvalidate();
  const fetcher = useIntentFetcher("trading-rules", () => invalidate("/api/trading-config"));
  const actionData = useActionData<SaveAnswer>();
  const answer = fetcher.data as SaveAnswer | undefined;
  // With JavaScript the fetcher has the answer; without, the page's own action data does.
  const lastResult = answer?.result ?? actionData?.result;

  const live = useApiQuery<{ config: TradingConfig }>("/api/trading-config", {
    initialData: { config: loaded },
    refetchIntervalMs: TRADING_CONFIG_POLL_MS,
  });
  const [formConfig, setFormConfig] = useState(loaded);
  const [saves, setSaves] = useState(0);
  const dirty = useRef(false);

  // A successful save: the form starts again from what was stored (clamped, normalised).
  useEffect(() => {
    if (fetcher.state === "idle" && answer?.config) {
      setFormConfig(answer.config);
      setSaves((n) => n + 1);
      dirty.current = false;
    }
  }, [fetcher.state, answer]);

  // Rules saved elsewhere (another admin, the API) replace the form only while it has no
  // unsaved edits: switches stay local form state until saved.
  const lastLive = useRef(JSON.stringify(loaded));
  useEffect(() => {
    const next = live.data?.config;
    if (!next || JSON.stringify(next) === lastLive.current) return;
    lastLive.current = JSON.stringify(next);
    if (!dirty.current) setFormConfig((current) => (sameConfig(current, next) ? current : next));
  }, [live.data]);

  // The real control (issue 11: SPEC's button here only toasted): Emergency Stop, or Reset
  // while it is active, through the dashboard's action.
  const emergencyActive = useEmergencyActive();

  return (
    <Screen title="Trading Rules" actions={<EmergencyControl emergencyActive={emergencyActive} action="/dashboard" />}>
      {confirm ? (
        <ConfirmPanel
          action="/trading-rules"
          intent={confirm}
          cancelHref="/trading-rules"
          {...CONFIRM_INTENTS[confirm]}
        />
      ) : null}
      <RulesForm
        key={`${saves}:${JSON.stringify(formConfig)}`}
        config={formConfig}
        fetcher={fetcher}
        lastResult={lastResult}
        onEdit={() => (dirty.current = true)}
      />
    </Screen>
  );
}
