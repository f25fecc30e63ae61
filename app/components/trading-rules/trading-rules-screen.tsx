// The Trading Rules screen (SPEC.md §2 Trading Rules, §4, §5, §8, §9), admins only.
// One form posted to the route's own action: with JavaScript through a fetcher (JSON answer,
// toast, instant validation with the same Zod schema as the server); without, as a plain
// HTML post (switches are real checkboxes; every conditional section is rendered, since
// nothing can hide it) answered by a redirect with a flash toast, or by the page again with
// the messages beside the fields. Switches are local form state until saved.
// The Emergency Stop button here only shows its toast (SPEC.md §8); Apply Rules and Reset
// Statistics call POST /api/positions/apply-rules and POST /api/reset-stats after a
// browser confirmation. See docs/decisions/007-trading-rules-form.md.
import { type SubmissionResult, getFormProps, useForm } from "@conform-to/react";
import SaveIcon from "@mui/icons-material/Save";
import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import Collapse from "@mui/material/Collapse";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Switch from "@mui/material/Switch";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useActionData } from "@remix-run/react";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { SIGNAL_AMOUNT_TYPES, type TradingConfig } from "#app/core/schemas/trading-config.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { apiRequest } from "#app/utils/api-client.ts";
import { useApiQuery, useInvalidate } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { EmergencyControl, JsMarker, useIntentFetcher } from "../dashboard/dashboard-header.tsx";
import { useEmergencyActive } from "../layout/emergency-banner.tsx";
import { ConfirmActionButton, ConfirmPanel } from "../confirm-action.tsx";
import { Screen } from "../screen.tsx";
import { useToast } from "../toaster.tsx";
import {
  MULTIPLIER_MAX,
  MULTIPLIER_MIN,
  SIGNAL_AMOUNT_RULES,
  type SignalAmountType,
  type TradingRulesFormValues,
  clampPortfolioPercent,
  configToFormValues,
  enabledTotalPercent,
  firstFormError,
  normalizeMultiplier,
  parseTradingRulesForm,
} from "#app/core/schemas/trading-rules-form.ts";

export const TRADING_CONFIG_POLL_MS = 30_000;
export const APPLY_RULES_CONFIRM =
  "Apply the saved trading rules to all existing open positions? Unsaved changes on this page are not included.";
export const RESET_STATS_CONFIRM =
  "Reset all performance statistics? This permanently deletes every trade, signal, position and activity log.";

/** What the action answers a fetcher (with JavaScript). */
export interface SaveAnswer {
  result?: SubmissionResult<string[]>;
  toast?: Toast | null;
  config?: TradingConfig;
}

const sameConfig = (a: TradingConfig, b: TradingConfig) => JSON.stringify(a) === JSON.stringify(b);

export function TradingRulesScreen({ config: loaded, confirm }: { config: TradingConfig; confirm?: ConfirmIntent | null }) {
  const toast = useToast();
  const invalidate = useInvalidate();
  const fetcher = useIntentFetcher("trading-rules", () => invalidate("/api/trading-config"));
  const actionData = useActionData<SaveAnswer>();
  const answer = fetcher.data as SaveAnswer | undefined;
  // With JavaScript the fetcher has the answer; without, the page's own action data does.
  const lastResult = answer?.result ?? actionData?.result;

  const live = useApiQuery<{ config: TradingConfig }>("/api/trading-config", { initialData: { config: loaded }, refetchIntervalMs: TRADING_CONFIG_POLL_MS });
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
      {confirm ? <ConfirmPanel action="/trading-rules" intent={confirm} cancelHref="/trading-rules" {...CONFIRM_INTENTS[confirm]} /> : null}
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

type Fetcher = ReturnType<typeof useIntentFetcher>;

function RulesForm({ config, fetcher, lastResult, onEdit }: { config: TradingConfig; fetcher: Fetcher; lastResult: SubmissionResult<string[]> | undefined; onEdit: () => void }) {
  const hydrated = useHydrated();
  const toast = useToast();
  const [form, fields] = useForm<TradingRulesFormValues, Partial<TradingConfig>>({
    id: "trading-rules",
    lastResult,
    // Booleans become "on" (checked) in conform's default values.
    defaultValue: configToFormValues(config),
    onValidate: ({ formData }) => parseTradingRulesForm(formData),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const on = (name: keyof typeof fields) => fields[name].initialValue === "on";
  const text = (name: keyof typeof fields) => (typeof fields[name].initialValue === "string" ? (fields[name].initialValue as string) : "");
  const error = (name: keyof typeof fields) => fields[name].errors?.[0];

  // Local form state of the switches that show or hide details, and of the take-profit
  // levels (their live total).
  const [amountOn, setAmountOn] = useState(on("applyAmountControlToSignals"));
  const [breakEvenOn, setBreakEvenOn] = useState(on("breakEvenEnabled"));
  const [trailingOn, setTrailingOn] = useState(on("trailingStopEnabled"));
  const levelFields = fields.takeProfits.getFieldList();
  const [levels, setLevels] = useState(() =>
    levelFields.map((lf) => {
      const set = lf.getFieldset();
      return { portfolio: String(set.portfolio.initialValue ?? ""), enabled: set.enabled.initialValue === "on" };
    }),
  );
  const [amountType, setAmountType] = useState<SignalAmountType>(
    (SIGNAL_AMOUNT_TYPES as readonly string[]).includes(text("signalAmountType")) ? (text("signalAmountType") as SignalAmountType) : "multiplier",
  );
  const [multiplier, setMultiplier] = useState(text("orderSizeMultiplier"));

  // Without JavaScript nothing can hide a section: every detail is shown.
  const show = (switchOn: boolean) => !hydrated || switchOn;
  const busy = fetcher.state !== "idle";
  const total = enabledTotalPercent(levels);
  const anyEnabled = levels.some((l) => l.enabled);
  const totalOk = !anyEnabled || Math.abs(Number(total) - 100) <= 0.1;
  const serverError = lastResult?.status === "error" ? firstFormError(lastResult.error as Record<string, string[] | null>) : null;
  const rule = SIGNAL_AMOUNT_RULES[amountType];
  const tpError = fields.takeProfits.errors?.[0];

  return (
    <fetcher.Form
      method="post"
      {...getFormProps(form)}
      noValidate
      data-testid="trading-rules-form"
      onChange={onEdit}
      onSubmit={(event) => {
        form.onSubmit(event);
        if (event.defaultPrevented) {
          // The same rules as the server stopped the post: say why.
          const submission = parseTradingRulesForm(new FormData(event.currentTarget));
          const message = submission.status === "error" ? firstFormError(submission.error as Record<string, string[] | null>) : "Please check the highlighted fields";
          toast({ title: "Error Saving Rules", description: message, variant: "destructive" });
        }
      }}
    >
      <JsMarker />
      {serverError ? (
        <Alert severity="error" sx={{ mb: 2 }} data-testid="rules-error">
          <AlertTitle>Error Saving Rules</AlertTitle>
          {serverError}
        </Alert>
      ) : null}
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "minmax(0, 1fr)", lg: "repeat(2, minmax(0, 1fr))" }, alignItems: "start" }}>
        <Section title="System Controls" testId="section-system-controls" description="Master switches for automated trading.">
          <SwitchRow name="autoTradingEnabled" label="Auto Trading" description="Execute incoming signals automatically" defaultChecked={on("autoTradingEnabled")} />
          <SwitchRow name="emergencyStopEnabled" label="Emergency Stop Allowed" description="Allow the emergency stop to halt all trading" defaultChecked={on("emergencyStopEnabled")} />
        </Section>

        <Section title="Signal Protection" testId="section-signal-protection" description="Protection a position opened by a TradingView signal receives.">
          <SwitchRow name="applyTakeProfitToSignals" label="Apply Take Profit to Signals" defaultChecked={on("applyTakeProfitToSignals")} />
          <SwitchRow name="applyStopLossToSignals" label="Apply Stop Loss to Signals" defaultChecked={on("applyStopLossToSignals")} />
          <SwitchRow name="applyBreakEvenToSignals" label="Apply Breakeven to Signals" defaultChecked={on("applyBreakEvenToSignals")} />
          <SwitchRow name="applyTrailingStopToSignals" label="Apply Trailing Stop to Signals" defaultChecked={on("applyTrailingStopToSignals")} />
          <SwitchRow
            name="applyLeverageToSignals"
            label="Apply Leverage to Signals"
            description="Use the alert's leverage field for signal orders (otherwise 1x)"
            defaultChecked={on("applyLeverageToSignals")}
          />
        </Section>

        <Section title="Manual Position Protection" testId="section-manual-protection" description="Protection a position opened by a manual order receives.">
          <SwitchRow name="applyTakeProfitToManual" label="Apply Take Profit to Manual" defaultChecked={on("applyTakeProfitToManual")} />
          <SwitchRow name="applyStopLossToManual" label="Apply Stop Loss to Manual" defaultChecked={on("applyStopLossToManual")} />
          <SwitchRow name="applyBreakEvenToManual" label="Apply Breakeven to Manual" defaultChecked={on("applyBreakEvenToManual")} />
          <SwitchRow name="applyTrailingStopToManual" label="Apply Trailing Stop to Manual" defaultChecked={on("applyTrailingStopToManual")} />
          <ApplyRulesButton />
        </Section>

        <Section title="Amount Control" testId="section-amount-control" description="How big an order a signal becomes.">
          <SwitchRow
            name="applyAmountControlToSignals"
            label="Apply Amount Control to Signals"
            description="Size signal orders by the rules below instead of the alert's quantity"
            checked={amountOn}
            onChange={setAmountOn}
          />
          <Collapse in={show(amountOn)} data-testid="amount-control-fields" data-shown={show(amountOn) ? "true" : "false"}>
            <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "repeat(3, minmax(0, 1fr))", lg: "1fr" }, pt: 1.5 }}>
              <TextField
                name={fields.orderSizeMultiplier.name}
                id={fields.orderSizeMultiplier.id}
                label="Order Size Multiplier"
                type="number"
                size="small"
                value={multiplier}
                onChange={(e) => setMultiplier(e.target.value)}
                onBlur={() => setMultiplier(normalizeMultiplier(multiplier))}
                helperText={error("orderSizeMultiplier") ?? "0.01 to 10 (invalid values become 1)"}
                error={!!error("orderSizeMultiplier")}
                slotProps={{ htmlInput: { min: MULTIPLIER_MIN, max: MULTIPLIER_MAX, step: "0.01" }, inputLabel: { shrink: true } }}
              />
              <TextField
                select
                name={fields.signalAmountType.name}
                id={fields.signalAmountType.id}
                label="Signal Amount Type"
                size="small"
                value={amountType}
                onChange={(e) => setAmountType(e.target.value as SignalAmountType)}
                error={!!error("signalAmountType")}
                helperText={error("signalAmountType")}
                slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
              >
                <option value="multiplier">Multiplier</option>
                <option value="usd">USD</option>
                <option value="percentage">Percentage</option>
                <option value="contracts">Contracts</option>
              </TextField>
              <TextField
                name={fields.signalAmountValue.name}
                id={fields.signalAmountValue.id}
                label="Signal Amount Value"
                type="number"
                size="small"
                defaultValue={text("signalAmountValue")}
                error={!!error("signalAmountValue")}
                helperText={error("signalAmountValue") ?? (hydrated ? rule.help : "Multiplier min 0.01; USD min 1; percentage 0.1 to 100; contracts whole, min 1")}
                slotProps={{ htmlInput: { min: rule.min, max: rule.max ?? undefined, step: rule.step ?? "any" }, inputLabel: { shrink: true } }}
              />
            </Box>
          </Collapse>
        </Section>

        <Section title="Advanced Trading Controls" testId="section-advanced" description="Take-profit levels, stop-loss, breakeven and trailing stop. Percentages are of the entry price unless noted." wide>
          <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap", mb: 1 }}>
            <Typography variant="subtitle2" component="h3">
              Take Profit Levels
            </Typography>
            <Chip
              size="small"
              data-testid="tp-total"
              color={totalOk ? "success" : "error"}
              variant="outlined"
              label={anyEnabled ? `Enabled levels total ${total}%` : "No level enabled"}
            />
          </Stack>
          {tpError ? (
            <Alert severity="error" sx={{ mb: 1.5 }} data-testid="tp-error">
              {tpError}
            </Alert>
          ) : null}
          <Stack spacing={1.5} data-testid="tp-levels">
            {levelFields.map((lf, i) => {
              const set = lf.getFieldset();
              return (
                <Box
                  key={lf.key}
                  data-testid="tp-level"
                  sx={{ display: "grid", gap: 1.5, alignItems: "center", gridTemplateColumns: { xs: "1fr 1fr", sm: "5rem 1fr 1fr auto" } }}
                >
                  <Typography variant="body2" sx={{ fontWeight: 600, gridColumn: { xs: "1 / -1", sm: "auto" } }}>
                    {`TP ${i + 1}`}
                  </Typography>
                  <TextField
                    name={set.portfolio.name}
                    id={set.portfolio.id}
                    label="Portfolio %"
                    type="number"
                    size="small"
                    value={levels[i]?.portfolio ?? ""}
                    onChange={(e) => {
                      // SPEC.md §5: clamped to 0..100 as it is typed (and again by the server).
                      const raw = e.target.value;
                      const n = Number(raw);
                      const value = raw !== "" && Number.isFinite(n) && (n < 0 || n > 100) ? (clampPortfolioPercent(raw) ?? raw) : raw;
                      setLevels((all) => all.map((l, j) => (j === i ? { ...l, portfolio: value } : l)));
                    }}
                    error={!!set.portfolio.errors?.length}
                    helperText={set.portfolio.errors?.[0]}
                    slotProps={{ htmlInput: { min: 0, max: 100, step: "any" }, inputLabel: { shrink: true } }}
                  />
                  <TextField
                    name={set.priceDeviation.name}
                    id={set.priceDeviation.id}
                    label="Price Deviation %"
                    type="number"
                    size="small"
                    defaultValue={String(set.priceDeviation.initialValue ?? "")}
                    error={!!set.priceDeviation.errors?.length}
                    helperText={set.priceDeviation.errors?.[0]}
                    slotProps={{ htmlInput: { min: 0, step: "any" }, inputLabel: { shrink: true } }}
                  />
                  <FormControlLabel
                    label="Enabled"
                    control={
                      <Checkbox
                        name={set.enabled.name}
                        checked={levels[i]?.enabled ?? false}
                        onChange={(e) => setLevels((all) => all.map((l, j) => (j === i ? { ...l, enabled: e.target.checked } : l)))}
                        slotProps={{ input: { "aria-label": `TP ${i + 1} enabled` } as object }}
                      />
                    }
                  />
                </Box>
              );
            })}
          </Stack>
          <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
            Portfolio % is the share of the position closed at that level (clamped to 0–100); the enabled levels must total 100%. Price deviation is the move from the entry price.
          </Typography>

          <Box sx={{ display: "grid", gap: 2, mt: 3, gridTemplateColumns: { xs: "minmax(0, 1fr)", md: "repeat(3, minmax(0, 1fr))" }, alignItems: "start" }}>
            <Box>
              <Typography variant="subtitle2" component="h3" sx={{ mb: 1.5 }}>
                Stop Loss
              </Typography>
              <TextField
                name={fields.stopLossOffset.name}
                id={fields.stopLossOffset.id}
                label="Stop Loss Offset %"
                type="number"
                size="small"
                fullWidth
                defaultValue={text("stopLossOffset")}
                error={!!error("stopLossOffset")}
                helperText={error("stopLossOffset") ?? "Distance from the entry price"}
                slotProps={{ htmlInput: { min: 0, max: 100, step: "any" }, inputLabel: { shrink: true } }}
              />
            </Box>
            <Box>
              <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
                Breakeven
              </Typography>
              <SwitchRow name="breakEvenEnabled" label="Enable Breakeven" checked={breakEvenOn} onChange={setBreakEvenOn} />
              <Collapse in={show(breakEvenOn)} data-testid="breakeven-details" data-shown={show(breakEvenOn) ? "true" : "false"}>
                <Typography variant="body2" color="text.secondary" sx={{ pt: 0.5 }}>
                  After the first take-profit level fills, the stop-loss moves to the entry price: when the price comes back to the entry, the rest is closed at market, about break-even but less the fees and any slippage of the closing order.
                </Typography>
              </Collapse>
            </Box>
            <Box>
              <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
                Trailing Stop
              </Typography>
              <SwitchRow name="trailingStopEnabled" label="Enable Trailing Stop" checked={trailingOn} onChange={setTrailingOn} />
              <Collapse in={show(trailingOn)} data-testid="trailing-details" data-shown={show(trailingOn) ? "true" : "false"}>
                <Stack spacing={1.5} sx={{ pt: 1 }}>
                  <TextField
                    name={fields.trailingStop.getFieldset().activation.name}
                    id={fields.trailingStop.getFieldset().activation.id}
                    label="Activation %"
                    type="number"
                    size="small"
                    defaultValue={String(fields.trailingStop.getFieldset().activation.initialValue ?? "")}
                    error={!!fields.trailingStop.getFieldset().activation.errors?.length}
                    helperText={fields.trailingStop.getFieldset().activation.errors?.[0] ?? "Profit at which the trailing stop arms"}
                    slotProps={{ htmlInput: { min: 0, max: 100, step: "any" }, inputLabel: { shrink: true } }}
                  />
                  <TextField
                    name={fields.trailingStop.getFieldset().execute.name}
                    id={fields.trailingStop.getFieldset().execute.id}
                    label="Execute %"
                    type="number"
                    size="small"
                    defaultValue={String(fields.trailingStop.getFieldset().execute.initialValue ?? "")}
                    error={!!fields.trailingStop.getFieldset().execute.errors?.length}
                    helperText={fields.trailingStop.getFieldset().execute.errors?.[0] ?? "Retrace from the best price that closes the position"}
                    slotProps={{ htmlInput: { min: 0, max: 100, step: "any" }, inputLabel: { shrink: true } }}
                  />
                </Stack>
              </Collapse>
            </Box>
          </Box>
        </Section>

        <Section title="Performance Statistics" testId="section-performance" description="Start the statistics from zero." wide>
          <ResetStatsButton />
        </Section>
      </Box>

      <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: "center", justifyContent: "flex-end", flexWrap: "wrap", mt: 3 }}>
        <Typography variant="body2" color="text.secondary">
          Changes apply to new positions once saved.
        </Typography>
        <Button type="submit" variant="contained" size="large" startIcon={<SaveIcon />} disabled={busy} data-testid="save-trading-rules">
          {busy ? "Saving..." : "Save Trading Rules"}
        </Button>
      </Stack>
    </fetcher.Form>
  );
}

function Section({ title, description, testId, wide, children }: { title: string; description?: string; testId: string; wide?: boolean; children: ReactNode }) {
  return (
    <Paper variant="outlined" component="section" aria-label={title} data-testid={testId} sx={{ p: 2.5, minWidth: 0, gridColumn: wide ? { lg: "1 / -1" } : undefined }}>
      <Typography variant="h3" component="h2">
        {title}
      </Typography>
      {description ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5, mb: 1.5 }}>
          {description}
        </Typography>
      ) : null}
      {children}
    </Paper>
  );
}

/** A labelled switch: a real checkbox input (posts "on" when checked). */
function SwitchRow({
  name,
  label,
  description,
  checked,
  defaultChecked,
  onChange,
}: {
  name: string;
  label: string;
  description?: string;
  checked?: boolean;
  defaultChecked?: boolean;
  onChange?: (checked: boolean) => void;
}) {
  return (
    <Box sx={{ py: 0.5 }}>
      <FormControlLabel
        sx={{ ml: 0, gap: 1, alignItems: "center" }}
        label={label}
        control={
          <Switch
            name={name}
            {...(checked !== undefined ? { checked } : { defaultChecked })}
            onChange={onChange ? (e) => onChange(e.target.checked) : undefined}
          />
        }
      />
      {description ? (
        <Typography variant="caption" color="text.secondary" component="p" sx={{ ml: 7.5, mt: -0.5 }}>
          {description}
        </Typography>
      ) : null}
    </Box>
  );
}

/** The intents the page's action confirms before running (no JavaScript: ?confirm=<intent>). */
export const CONFIRM_INTENTS = {
  "apply-rules": { title: "Apply Rules to Existing Positions", question: APPLY_RULES_CONFIRM, confirmLabel: "Apply Rules" },
  "reset-stats": { title: "Reset Statistics", question: RESET_STATS_CONFIRM, confirmLabel: "Reset Statistics" },
} as const;
export type ConfirmIntent = keyof typeof CONFIRM_INTENTS;

function ApplyRulesButton() {
  const invalidate = useInvalidate();
  return (
    <Box sx={{ mt: 1.5 }}>
      <ConfirmActionButton
        intent="apply-rules"
        label="Apply Rules to Existing Positions"
        busyLabel="Applying..."
        question={APPLY_RULES_CONFIRM}
        failTitle="Failed to Apply Rules"
        failText="Failed to apply rules to existing positions"
        testId="apply-rules"
        run={async () => {
          const result = await apiRequest<{ appliedCount?: number; totalPositions?: number }>("POST", "/api/positions/apply-rules");
          invalidate("/api/positions", "/api/dashboard/stats");
          return { title: "Rules Applied", description: appliedText(result.appliedCount ?? 0, result.totalPositions ?? 0) };
        }}
      />
    </Box>
  );
}

export const appliedText = (applied: number, total: number) => `Applied the trading rules to ${applied} of ${total} open positions`;
export const RESET_DONE: Toast = { title: "Statistics Reset", description: "All trades, signals, positions and activity logs have been deleted" };

function ResetStatsButton() {
  const invalidate = useInvalidate();
  return (
    <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap" }}>
      <ConfirmActionButton
        intent="reset-stats"
        label="Reset Statistics"
        busyLabel="Resetting..."
        question={RESET_STATS_CONFIRM}
        failTitle="Reset Failed"
        failText="Failed to reset statistics"
        color="error"
        testId="reset-stats"
        run={async () => {
          await apiRequest("POST", "/api/reset-stats");
          invalidate("/api/");
          return RESET_DONE;
        }}
      />
      <Typography variant="body2" color="text.secondary">
        Deletes all trades, signals, positions and activity logs.
      </Typography>
    </Stack>
  );
}
