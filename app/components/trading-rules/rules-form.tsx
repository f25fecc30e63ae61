// The Trading Rules form (docs/spec/screens.md Trading Rules, screens.md#states, api.md#validation): one form posted to the route's
// own action, with JavaScript through a fetcher (JSON answer, toast, instant validation with
// the same Zod schema as the server), without as a plain HTML post. Its sections are the
// components beside it; switches are local form state until saved.
import { type SubmissionResult, getFormProps, useForm } from "@conform-to/react";
import SaveIcon from "@mui/icons-material/Save";
import Alert from "@mui/material/Alert";
import AlertTitle from "@mui/material/AlertTitle";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { TradingConfig } from "#app/core/schemas/trading-config.ts";
import {
  type TradingRulesFormValues,
  configToFormValues,
  firstFormError,
  parseTradingRulesForm,
} from "#app/core/schemas/trading-rules-form.ts";
import { JsMarker, type useIntentFetcher } from "../dashboard/dashboard-header.tsx";
import { useToast } from "../toaster.tsx";
import { AmountControlSection } from "./amount-control.tsx";
import { type RulesFields, Section, SwitchRow, initialOn } from "./form-parts.tsx";
import { ApplyRulesButton, ResetStatsButton } from "./maintenance-actions.tsx";
import { StopControls } from "./stop-controls.tsx";
import { TakeProfitLevels } from "./take-profit-levels.tsx";

type Fetcher = ReturnType<typeof useIntentFetcher>;

export function RulesForm({
  config,
  fetcher,
  lastResult,
  onEdit,
}: {
  config: TradingConfig;
  fetcher: Fetcher;
  lastResult: SubmissionResult<string[]> | undefined;
  onEdit: () => void;
}) {
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
  const busy = fetcher.state !== "idle";
  const serverError =
    lastResult?.status === "error" ? firstFormError(lastResult.error as Record<string, string[] | null>) : null;

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
          const message =
            submission.status === "error"
              ? firstFormError(submission.error as Record<string, string[] | null>)
              : "Please check the highlighted fields";
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
      <Box
        sx={{
          display: "grid",
          gap: 2,
          gridTemplateColumns: { xs: "minmax(0, 1fr)", lg: "repeat(2, minmax(0, 1fr))" },
          alignItems: "start",
        }}
      >
        <Section
          title="System Controls"
          testId="section-system-controls"
          description="Master switches for automated trading."
        >
          <SwitchRow
            name="autoTradingEnabled"
            label="Auto Trading"
            description="Execute incoming signals automatically"
            defaultChecked={initialOn(fields.autoTradingEnabled)}
          />
          <SwitchRow
            name="emergencyStopEnabled"
            label="Emergency Stop Allowed"
            description="Allow the emergency stop to halt all trading"
            defaultChecked={initialOn(fields.emergencyStopEnabled)}
          />
        </Section>

        <Section
          title="Signal Protection"
          testId="section-signal-protection"
          description="Protection a position opened by a TradingView signal receives."
        >
          <ProtectionSwitches fields={fields} origin="Signals" />
          <SwitchRow
            name="applyLeverageToSignals"
            label="Apply Leverage to Signals"
            description="Use the alert's leverage field for signal orders (otherwise 1x)"
            defaultChecked={initialOn(fields.applyLeverageToSignals)}
          />
        </Section>

        <Section
          title="Manual Position Protection"
          testId="section-manual-protection"
          description="Protection a position opened by a manual order receives."
        >
          <ProtectionSwitches fields={fields} origin="Manual" />
          <ApplyRulesButton />
        </Section>

        <AmountControlSection fields={fields} />

        <Section
          title="Advanced Trading Controls"
          testId="section-advanced"
          description="Take-profit levels, stop-loss, breakeven and trailing stop. Percentages are of the entry price unless noted."
          wide
        >
          <TakeProfitLevels fields={fields} />
          <StopControls fields={fields} />
        </Section>

        <Section
          title="Performance Statistics"
          testId="section-performance"
          description="Start the statistics from zero."
          wide
        >
          <ResetStatsButton />
        </Section>
      </Box>

      <Stack
        direction="row"
        spacing={2}
        useFlexGap
        sx={{ alignItems: "center", justifyContent: "flex-end", flexWrap: "wrap", mt: 3 }}
      >
        <Typography variant="body2" color="text.secondary">
          Changes apply to new positions once saved.
        </Typography>
        <Button
          type="submit"
          variant="contained"
          size="large"
          startIcon={<SaveIcon />}
          disabled={busy}
          data-testid="save-trading-rules"
        >
          {busy ? "Saving..." : "Save Trading Rules"}
        </Button>
      </Stack>
    </fetcher.Form>
  );
}

const PROTECTIONS = [
  ["TakeProfit", "Take Profit"],
  ["StopLoss", "Stop Loss"],
  ["BreakEven", "Breakeven"],
  ["TrailingStop", "Trailing Stop"],
] as const;

/** "Apply Take Profit to Signals" … "Apply Trailing Stop to Manual": the four protections for one origin. */
function ProtectionSwitches({ fields, origin }: { fields: RulesFields; origin: "Signals" | "Manual" }) {
  return PROTECTIONS.map(([key, label]) => {
    const name = `apply${key}To${origin}` as const;
    return (
      <SwitchRow
        key={name}
        name={name}
        label={`Apply ${label} to ${origin}`}
        defaultChecked={initialOn(fields[name])}
      />
    );
  });
}
