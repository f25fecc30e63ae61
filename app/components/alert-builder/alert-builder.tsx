// The alert template builder (issue 12): the trader picks the mode, order type, sizing,
// leverage, symbol and the dedupe / fire-time fields, and gets the exact message to paste
// into TradingView, with a Copy button and what each field does. The message comes from
// one pure function (app/core/alerts/template.ts). Without JavaScript the choices are a
// plain GET form (query parameters) rendered on the server; with it the message follows
// each choice at once and the URL is kept in step (replaceState, no reload).
//
// Reusable: Webhook Config renders it with the global secret; a strategy's screen can render
// it with the strategy's secret and name (`prefix` keeps several builders apart on one page).
// `secret` is null for a role that may not see it: the message then carries a placeholder.
// On a strategy, e.g.:
//   <AlertBuilder secret={mayReadSecret ? strategySecret : null} url={webhookUrl} strategy={strategy.name}
//     prefix={`s${index}`} title={`Alert for ${strategy.name}`} testId={`alert-builder-${strategy.id}`} />
// (no leverageApplies there: a strategy's alerts trade at the strategy's own leverage).
import ContentCopyIcon from "@mui/icons-material/ContentCopy";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import FormControl from "@mui/material/FormControl";
import FormControlLabel from "@mui/material/FormControlLabel";
import FormLabel from "@mui/material/FormLabel";
import Paper from "@mui/material/Paper";
import Radio from "@mui/material/Radio";
import RadioGroup from "@mui/material/RadioGroup";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useLocation, useSearchParams } from "@remix-run/react";
import { type FormEvent, type ReactNode, useState } from "react";
import {
  ALERT_MODES,
  ALERT_MODE_LABELS,
  ALERT_PARAM_KEYS,
  type AlertTemplateOptions,
  TICKER,
  alertBuilderSearch,
  alertParamName,
  buildAlertMessage,
  explainAlertFields,
  leverageError,
  parseAlertBuilderParams,
  quantityError,
} from "#app/core/alerts/template.ts";
import { listSymbols } from "#app/core/products.ts";
import { copyText } from "#app/utils/copy-text.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useToast } from "../toaster.tsx";

/** Stands in for the secret when the viewer's role may not see it. */
export const SECRET_PLACEHOLDER = "<webhook secret: ask an admin>";

export const maskSecret = (secret: string) => "•".repeat(Math.min(Math.max(secret.length, 8), 32));

const MODE_HELP: Record<AlertTemplateOptions["mode"], string> = {
  entry: "Each strategy order becomes a buy or sell of its size: it adds to or reduces the position.",
  exit: "Closes the whole position on the symbol; a repeated exit finds it flat and sends nothing.",
  reverse: "Ends on the chosen side at the size: closes an opposite position and opens this one, in one order.",
  target:
    "Brings the position to the strategy's own (long / flat / short and its size): a missed or repeated alert cannot leave it out of step.",
};

const mono = { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", fontSize: 13 } as const;

export interface AlertBuilderProps {
  /** The secret to put in the message; null when the viewer's role may not see it. */
  secret: string | null;
  /** The page shows the secret in clear (e.g. Webhook Config's reveal toggle). */
  revealed?: boolean;
  /** The webhook URL the alert goes to, shown above the message when given. */
  url?: string;
  /** A strategy's name, sent as the alert's `strategy` field. */
  strategy?: string;
  /** The trading config applies leverage to signals: offer a leverage field (entry mode). */
  leverageApplies?: boolean;
  /** Strict ticker mapping is on: {{ticker}} must then be a product's own symbol. */
  strictTickers?: boolean;
  /** Query-parameter prefix (default `alert`); give each builder on a page its own. */
  prefix?: string;
  title?: string;
  testId?: string;
}

export function AlertBuilder({
  secret,
  revealed = false,
  url,
  strategy = "",
  leverageApplies = false,
  strictTickers = false,
  prefix = "alert",
  title = "Alert template builder",
  testId = "alert-builder",
}: AlertBuilderProps) {
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const hydrated = useHydrated();
  const toast = useToast();
  const [initial] = useState(() => parseAlertBuilderParams(searchParams, { prefix, leverageApplies, strategy }));
  const [options, setOptions] = useState<AlertTemplateOptions>(initial.options);
  const [quantityInput, setQuantityInput] = useState(initial.options.quantity);
  const [quantityMessage, setQuantityMessage] = useState<string | null>(initial.errors.quantity ?? null);
  const [reveal, setReveal] = useState(initial.reveal);
  const name = (key: keyof typeof ALERT_PARAM_KEYS) => alertParamName(key, prefix);
  const effective: AlertTemplateOptions = {
    ...options,
    strategy,
    leverage: leverageApplies ? (options.leverage ?? 1) : null,
  };

  /** Keeps the address in step so a reload (or a shared link) shows the same message. */
  const syncUrl = (next: AlertTemplateOptions, nextReveal: boolean) => {
    if (typeof window === "undefined") return;
    const current = new URL(window.location.href);
    for (const key of Object.keys(ALERT_PARAM_KEYS) as (keyof typeof ALERT_PARAM_KEYS)[])
      current.searchParams.delete(name(key));
    for (const [key, value] of alertBuilderSearch(next, { prefix, reveal: nextReveal }))
      current.searchParams.set(key, value);
    window.history.replaceState(window.history.state, "", current);
  };
  const update = (patch: Partial<AlertTemplateOptions>) => {
    const next = { ...options, ...patch };
    setOptions(next);
    syncUrl(next, reveal);
  };

  const showSecret = secret !== null && (revealed || reveal);
  const message = buildAlertMessage(effective, secret ?? SECRET_PLACEHOLDER);
  const shown = secret === null || showSecret ? message : message.split(`"${secret}"`).join(`"${maskSecret(secret)}"`);
  const fields = explainAlertFields(effective, { secretShown: secret !== null });

  const copy = async () => {
    if (await copyText(message)) {
      toast({
        title: "Copied",
        description:
          secret === null
            ? "Alert message copied: put the webhook secret in before use"
            : "Alert message copied to the clipboard",
      });
    } else {
      toast({
        title: "Copy failed",
        description: "Select the alert message and copy it by hand",
        variant: "destructive",
      });
    }
  };

  const radios = <T extends string>(
    label: string,
    field: keyof typeof ALERT_PARAM_KEYS,
    value: T,
    choices: readonly (readonly [T, string])[],
    onChange: (value: T) => void,
  ) => (
    <FormControl component="fieldset" sx={{ minWidth: 0 }}>
      <FormLabel component="legend" sx={{ fontSize: 14 }}>
        {label}
      </FormLabel>
      <RadioGroup row name={name(field)} value={value} onChange={(event) => onChange(event.target.value as T)}>
        {choices.map(([choice, text]) => (
          <FormControlLabel
            key={choice}
            value={choice}
            control={<Radio size="small" />}
            label={text}
            slotProps={{ typography: { variant: "body2" } }}
            data-testid={`${testId}-${field}-${choice}`}
          />
        ))}
      </RadioGroup>
    </FormControl>
  );

  return (
    <Paper variant="outlined" sx={{ p: 2.5, minWidth: 0 }} data-testid={testId}>
      <Typography variant="h3" component="h2" sx={{ mb: 1 }}>
        {title}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        Choose how the alert should trade; the message below is the exact text for the alert's Message field.
      </Typography>
      <Box
        component="form"
        method="get"
        action={location.pathname}
        onSubmit={(event: FormEvent) => {
          // With JavaScript the message already follows every choice.
          if (hydrated) event.preventDefault();
        }}
        data-testid={`${testId}-form`}
      >
        <input type="hidden" name={name("submitted")} value="1" />
        <Stack spacing={2}>
          {radios(
            "Mode",
            "mode",
            options.mode,
            ALERT_MODES.map((mode) => [mode, ALERT_MODE_LABELS[mode]] as const),
            (mode) => update({ mode }),
          )}
          <Typography variant="body2" color="text.secondary" data-testid={`${testId}-mode-help`}>
            {MODE_HELP[options.mode]}
          </Typography>
          {!hydrated || options.mode === "reverse"
            ? radios(
                "Reverse to",
                "direction",
                options.direction,
                [
                  ["long", "Long (buy)"],
                  ["short", "Short (sell)"],
                ] as const,
                (direction) => update({ direction }),
              )
            : null}
          {radios(
            "Order type",
            "orderType",
            options.orderType,
            [
              ["market", "Market"],
              ["limit", "Limit at {{close}}"],
            ] as const,
            (orderType) => update({ orderType }),
          )}
          {radios(
            "Size",
            "sizing",
            options.sizing,
            [
              [
                "strategy",
                options.mode === "entry" || options.mode === "exit"
                  ? "Strategy's order ({{strategy.order.contracts}})"
                  : "Strategy's position ({{strategy.market_position_size}})",
              ],
              ["fixed", "Fixed quantity"],
            ] as const,
            (sizing) => update({ sizing }),
          )}
          {!hydrated || options.sizing === "fixed" ? (
            <TextField
              name={name("quantity")}
              label="Fixed quantity (base asset)"
              size="small"
              value={quantityInput}
              error={Boolean(quantityMessage)}
              helperText={quantityMessage ?? "Used when the size is a fixed quantity."}
              onChange={(event) => {
                const value = event.target.value;
                setQuantityInput(value);
                const problem = quantityError(value.trim());
                setQuantityMessage(problem);
                if (!problem) update({ quantity: value.trim() });
              }}
              slotProps={{ htmlInput: { inputMode: "decimal", "data-testid": `${testId}-quantity`, maxLength: 40 } }}
              sx={{ maxWidth: 320 }}
            />
          ) : null}
          {leverageApplies && (!hydrated || options.mode === "entry") ? (
            <TextField
              select
              name={name("leverage")}
              label="Leverage"
              size="small"
              value={String(options.leverage ?? 1)}
              onChange={(event) => {
                if (!leverageError(event.target.value)) update({ leverage: Number(event.target.value) });
              }}
              helperText="Trading Rules apply leverage to signals; entry alerts only."
              slotProps={{ select: { native: true }, htmlInput: { "data-testid": `${testId}-leverage` } }}
              sx={{ maxWidth: 320 }}
            >
              {Array.from({ length: 10 }, (_, i) => i + 1).map((n) => (
                <option key={n} value={n}>
                  {n}x
                </option>
              ))}
            </TextField>
          ) : null}
          <TextField
            select
            name={name("symbol")}
            label="Symbol"
            size="small"
            value={options.symbol}
            onChange={(event) => update({ symbol: event.target.value })}
            helperText={
              options.symbol === TICKER
                ? "The chart's ticker, mapped to its perpetual."
                : "Always this product, whatever the chart."
            }
            slotProps={{ select: { native: true }, htmlInput: { "data-testid": `${testId}-symbol` } }}
            sx={{ maxWidth: 320 }}
          >
            <option value={TICKER}>{"Chart ticker ({{ticker}})"}</option>
            {listSymbols().map((symbol) => (
              <option key={symbol} value={symbol}>
                {symbol}
              </option>
            ))}
          </TextField>
          {strictTickers && options.symbol === TICKER ? (
            <Alert severity="warning" data-testid={`${testId}-strict-warning`}>
              Strict ticker mapping is on: {"{{ticker}}"} must be one of {listSymbols().join(", ")}, or the alert is
              refused. Choose a fixed product unless the chart's ticker is one.
            </Alert>
          ) : null}
          <Box sx={{ display: "flex", flexWrap: "wrap", columnGap: 2 }}>
            <FormControlLabel
              control={
                <Checkbox
                  size="small"
                  name={name("dedupe")}
                  checked={options.dedupe}
                  onChange={(event) => update({ dedupe: event.target.checked })}
                />
              }
              label="Deduplicate (order id + bar time)"
              slotProps={{ typography: { variant: "body2" } }}
              data-testid={`${testId}-dedupe`}
            />
            <FormControlLabel
              control={
                <Checkbox
                  size="small"
                  name={name("fireTime")}
                  checked={options.fireTime}
                  onChange={(event) => update({ fireTime: event.target.checked })}
                />
              }
              label="Fire time ({{timenow}})"
              slotProps={{ typography: { variant: "body2" } }}
              data-testid={`${testId}-timenow`}
            />
            {secret !== null && !revealed ? (
              <FormControlLabel
                control={
                  <Checkbox
                    size="small"
                    name={name("reveal")}
                    checked={reveal}
                    onChange={(event) => {
                      setReveal(event.target.checked);
                      syncUrl(options, event.target.checked);
                    }}
                  />
                }
                label="Show the secret"
                slotProps={{ typography: { variant: "body2" } }}
                data-testid={`${testId}-reveal`}
              />
            ) : null}
          </Box>
          {hydrated ? null : (
            <Box>
              <Button type="submit" variant="outlined" size="small" data-testid={`${testId}-submit`}>
                Update message
              </Button>
            </Box>
          )}
        </Stack>
      </Box>

      {url ? (
        <Typography variant="body2" sx={{ mt: 2.5, overflowWrap: "anywhere" }}>
          Webhook URL:{" "}
          <Box component="code" sx={mono} data-testid={`${testId}-url`}>
            {url}
          </Box>
        </Typography>
      ) : null}
      <Stack
        direction="row"
        sx={{ mt: 2.5, mb: 1, alignItems: "center", justifyContent: "space-between", gap: 1, flexWrap: "wrap" }}
      >
        <Typography variant="subtitle2" component="h3">
          Message to paste
        </Typography>
        <Button
          size="small"
          variant="contained"
          startIcon={<ContentCopyIcon fontSize="small" />}
          onClick={copy}
          disabled={!hydrated}
          data-testid={`${testId}-copy`}
        >
          Copy
        </Button>
      </Stack>
      <Box
        component="pre"
        data-testid={`${testId}-message`}
        data-mode={options.mode}
        data-secret={secret === null ? "none" : showSecret ? "shown" : "masked"}
        sx={{
          ...mono,
          m: 0,
          p: 2,
          maxWidth: "100%",
          borderRadius: 1,
          bgcolor: "background.default",
          border: 1,
          borderColor: "divider",
          whiteSpace: "pre-wrap",
          overflowWrap: "anywhere",
          overflowX: "auto",
        }}
      >
        {shown}
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
        {secret === null
          ? "Your role may not see the webhook secret: an admin puts it in place of the placeholder."
          : showSecret
            ? "Your secret is filled in: keep this message private."
            : "Your secret is filled in (hidden here, included when copied)."}{" "}
        TradingView fills the{" "}
        <Box component="code" sx={mono}>
          {"{{…}}"}
        </Box>{" "}
        placeholders when the alert fires.
      </Typography>

      <Typography variant="subtitle2" component="h3" sx={{ mt: 2.5, mb: 1 }}>
        What each field does
      </Typography>
      <Box component="dl" sx={{ m: 0, display: "grid", gap: 1.25 }} data-testid={`${testId}-fields`}>
        {fields.map((field) => (
          <FieldHelp key={field.field} name={field.field} value={field.value}>
            <Box component="span" sx={{ display: "block" }}>
              <b>TradingView:</b> {field.tradingView}
            </Box>
            <Box component="span" sx={{ display: "block" }}>
              <b>App:</b> {field.app}
            </Box>
          </FieldHelp>
        ))}
      </Box>
    </Paper>
  );
}

function FieldHelp({ name, value, children }: { name: string; value: string; children: ReactNode }) {
  return (
    <Box data-field={name} sx={{ minWidth: 0 }}>
      <Box component="dt" sx={{ ...mono, fontWeight: 600, overflowWrap: "anywhere" }}>
        {name}{" "}
        <Box component="span" sx={{ fontWeight: 400, color: "text.secondary" }}>
          {value}
        </Box>
      </Box>
      <Box component="dd" sx={{ m: 0, mt: 0.25, typography: "body2", color: "text.secondary" }}>
        {children}
      </Box>
    </Box>
  );
}
