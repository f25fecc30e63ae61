// The Strategies screen (docs/decisions/027-strategies.md): every role reads each strategy's
// settings, webhook URL and alert message; admins create, edit, enable/disable, rotate and
// delete with plain form posts (they work without JavaScript).
import { type SubmissionResult, getFormProps, useForm } from "@conform-to/react";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Chip from "@mui/material/Chip";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { Form } from "@remix-run/react";
import type { ReactNode } from "react";
import { listSymbols } from "#app/core/products.ts";
import type { StrategyInput } from "#app/core/schemas/strategy.ts";
import { IntentForm } from "#app/components/forms.tsx";
import { AlertBuilder } from "#app/components/alert-builder/alert-builder.tsx";
import { heartbeatStateText } from "#app/components/webhook/heartbeat-card.tsx";
import { type SignalNow, TestAlertCard, type TestAlertSent } from "#app/components/webhook/test-alert-card.tsx";
import type { StrategyHeartbeat } from "#app/core/types/heartbeats.ts";
import { parseStrategyForm } from "#app/core/schemas/strategy-form.ts";
import { describeBreakEvenOffset } from "#app/core/rules/breakeven.ts";

export interface StrategyCard extends StrategyInput {
  id: string;
  webhookUrl: string;
  alertMessage: string;
  secret: string | null;
}

const pct = (f: number) => `${Number((f * 100).toFixed(4))}`;
const inputSx = {
  display: "block",
  width: "100%",
  boxSizing: "border-box" as const,
  padding: "8px",
  font: "inherit",
  border: "1px solid #ccc",
  borderRadius: "6px",
  background: "transparent",
  color: "inherit",
};

function Field({ label, error, children }: { label: string; error?: string[]; children: ReactNode }) {
  return (
    <Box component="label" sx={{ display: "block", minWidth: 0 }}>
      <Typography variant="body2" sx={{ fontWeight: 600, mb: 0.5 }}>
        {label}
      </Typography>
      {children}
      {error?.length ? (
        <Typography variant="caption" color="error" role="alert">
          {error[0]}
        </Typography>
      ) : null}
    </Box>
  );
}

export function StrategyForm({
  strategy,
  lastResult,
}: {
  strategy?: StrategyCard;
  lastResult?: SubmissionResult<string[]>;
}) {
  const id = strategy ? `strategy-edit-${strategy.id}` : "strategy-create";
  const [form, fields] = useForm({
    id,
    lastResult,
    onValidate: ({ formData }) => parseStrategyForm(formData),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const r = strategy?.rules ?? {};
  const err = (name: string) => (fields as unknown as Record<string, { errors?: string[] }>)[name]?.errors;
  return (
    <Form method="post" {...getFormProps(form)} data-testid={id}>
      <input type="hidden" name="intent" value={strategy ? "update" : "create"} />
      {strategy ? <input type="hidden" name="id" value={strategy.id} /> : null}
      {form.errors?.length ? (
        <Typography color="error" role="alert" sx={{ mb: 1 }}>
          {form.errors[0]}
        </Typography>
      ) : null}
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", md: "repeat(3, minmax(0, 1fr))" } }}>
        <Field label="Name" error={err("name")}>
          <input style={inputSx} name="name" defaultValue={strategy?.name ?? ""} aria-label="Name" />
        </Field>
        <Field label="Amount type" error={err("amountType")}>
          <select
            style={inputSx}
            name="amountType"
            defaultValue={strategy?.amountType ?? "multiplier"}
            aria-label="Amount type"
          >
            <option value="multiplier">Multiplier of the alert's quantity</option>
            <option value="usd">USD amount</option>
            <option value="percentage">Percentage of balance</option>
            <option value="contracts">Contracts</option>
          </select>
        </Field>
        <Field label="Amount value" error={err("amountValue")}>
          <input
            style={inputSx}
            name="amountValue"
            defaultValue={strategy?.amountValue ?? "1"}
            aria-label="Amount value"
            inputMode="decimal"
          />
        </Field>
        <Field label="Leverage (1-10)" error={err("leverage")}>
          <input
            style={inputSx}
            name="leverage"
            defaultValue={String(strategy?.leverage ?? 1)}
            aria-label="Leverage"
            inputMode="numeric"
          />
        </Field>
        <Field label="Max position size (blank: none)" error={err("maxPositionSize")}>
          <input
            style={inputSx}
            name="maxPositionSize"
            defaultValue={strategy?.maxPositionSize ?? ""}
            aria-label="Max position size"
            inputMode="decimal"
          />
        </Field>
        <Field label="Max open positions (blank: none)" error={err("maxOpenPositions")}>
          <input
            style={inputSx}
            name="maxOpenPositions"
            defaultValue={strategy?.maxOpenPositions == null ? "" : String(strategy.maxOpenPositions)}
            aria-label="Max open positions"
            inputMode="numeric"
          />
        </Field>
        <Field label="Stop-loss offset % (blank: Trading Rules)" error={err("stopLossOffset")}>
          <input
            style={inputSx}
            name="stopLossOffset"
            defaultValue={r.stopLossOffset === undefined ? "" : pct(r.stopLossOffset)}
            aria-label="Stop-loss offset"
            inputMode="decimal"
          />
        </Field>
        <Field label="Take-profit levels (portfolio%@deviation%; blank: Trading Rules)" error={err("takeProfits")}>
          <input
            style={inputSx}
            name="takeProfits"
            defaultValue={
              r.takeProfits
                ? r.takeProfits
                    .filter((l) => l.enabled)
                    .map((l) => `${pct(l.portfolio)}@${pct(l.priceDeviation)}`)
                    .join(", ")
                : ""
            }
            aria-label="Take-profit levels"
            placeholder="50@1, 50@2"
          />
        </Field>
        <Field label="Break-even" error={err("breakEven")}>
          <OverrideSwitch name="breakEven" value={r.breakEvenEnabled} label="Break-even" />
        </Field>
        <Field label="Break-even offset (e.g. 5 ticks or 0.1%; blank: Trading Rules)" error={err("breakEvenOffset")}>
          <input
            style={inputSx}
            name="breakEvenOffset"
            defaultValue={r.breakEvenOffset ? describeBreakEvenOffset(r.breakEvenOffset).replace(" %", "%") : ""}
            aria-label="Break-even offset"
            placeholder="0.1%"
          />
        </Field>
        <Field label="Trailing stop" error={err("trailing")}>
          <OverrideSwitch name="trailing" value={r.trailingStopEnabled} label="Trailing stop" />
        </Field>
        <Field label="Trailing activation %" error={err("trailingActivation")}>
          <input
            style={inputSx}
            name="trailingActivation"
            defaultValue={r.trailingStop ? pct(r.trailingStop.activation) : ""}
            aria-label="Trailing activation"
            inputMode="decimal"
          />
        </Field>
        <Field label="Trailing distance %" error={err("trailingExecute")}>
          <input
            style={inputSx}
            name="trailingExecute"
            defaultValue={r.trailingStop ? pct(r.trailingStop.execute) : ""}
            aria-label="Trailing distance"
            inputMode="decimal"
          />
        </Field>
      </Box>
      <Stack direction="row" spacing={2} useFlexGap sx={{ mt: 2, flexWrap: "wrap", alignItems: "center" }}>
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          Allowed symbols (none ticked: all)
        </Typography>
        {listSymbols().map((s) => (
          <label key={s}>
            <input
              type="checkbox"
              name="allowedSymbols"
              value={s}
              defaultChecked={strategy?.allowedSymbols.includes(s) ?? false}
            />{" "}
            {s}
          </label>
        ))}
        <label>
          <input type="checkbox" name="enabled" defaultChecked={strategy?.enabled ?? true} /> Enabled
        </label>
        <Box sx={{ flex: 1 }} />
        <Button type="submit" variant="contained">
          {strategy ? "Save Strategy" : "Create Strategy"}
        </Button>
      </Stack>
    </Form>
  );
}

function Summary({ s }: { s: StrategyCard }) {
  const r = s.rules;
  const overrides = [
    r.takeProfits
      ? `TP ${r.takeProfits
          .filter((l) => l.enabled)
          .map((l) => `${pct(l.portfolio)}%@${pct(l.priceDeviation)}%`)
          .join(", ")}`
      : null,
    r.stopLossOffset !== undefined ? `SL ${pct(r.stopLossOffset)}%` : null,
    r.breakEvenEnabled !== undefined ? `break-even ${r.breakEvenEnabled ? "on" : "off"}` : null,
    r.breakEvenOffset !== undefined ? `break-even offset ${describeBreakEvenOffset(r.breakEvenOffset)}` : null,
    r.trailingStopEnabled !== undefined ? `trailing ${r.trailingStopEnabled ? "on" : "off"}` : null,
  ].filter(Boolean);
  return (
    <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: "anywhere" }}>
      Symbols: {s.allowedSymbols.length ? s.allowedSymbols.join(", ") : "all"} · Sizing: {s.amountType} {s.amountValue}{" "}
      · Leverage {s.leverage}x · Max position {s.maxPositionSize ?? "none"} · Max open positions{" "}
      {s.maxOpenPositions ?? "none"} · Rules: {overrides.length ? overrides.join(", ") : "all from Trading Rules"}
    </Typography>
  );
}

/** Issue 12 extras per strategy: its heartbeat alarm and the last test alert sent from this screen. */
export interface StrategyExtras {
  heartbeats: Record<string, StrategyHeartbeat>;
  now: number;
  builderSearch: string;
  test: { strategyId: string | null; sent: TestAlertSent | null; initial: SignalNow | null };
}

/** An on/off rule override: blank keeps Trading Rules' choice. */
function OverrideSwitch({ name, value, label }: { name: string; value: boolean | undefined; label: string }) {
  return (
    <select
      style={inputSx}
      name={name}
      defaultValue={value === undefined ? "" : value ? "on" : "off"}
      aria-label={label}
    >
      <option value="">From Trading Rules</option>
      <option value="on">On</option>
      <option value="off">Off</option>
    </select>
  );
}

export function StrategiesScreen({
  strategies,
  canManage,
  lastResult,
  editing,
  extras,
}: {
  strategies: StrategyCard[];
  canManage: boolean;
  lastResult?: SubmissionResult<string[]> & { formId?: string };
  editing: string | null;
  extras: StrategyExtras;
}) {
  return (
    <Stack spacing={3}>
      {canManage ? (
        <Paper variant="outlined" sx={{ p: 2 }}>
          <Typography variant="h3" component="h2" gutterBottom>
            New strategy
          </Typography>
          {/* A fresh (empty) form once a strategy was created. */}
          <StrategyForm key={strategies.map((s) => s.id).join()} lastResult={editing ? undefined : lastResult} />
        </Paper>
      ) : null}
      {strategies.length === 0 ? (
        <Paper variant="outlined" sx={{ p: 3 }}>
          <Typography>
            No strategies yet. Alerts sent with the global webhook secret trade as the default strategy.
          </Typography>
        </Paper>
      ) : null}
      {strategies.map((s, index) => (
        <Paper key={s.id} variant="outlined" sx={{ p: 2, minWidth: 0 }} data-testid={`strategy-${s.name}`}>
          <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap", mb: 1 }}>
            <Typography variant="h3" component="h2">
              {s.name}
            </Typography>
            <Chip size="small" label={s.enabled ? "Enabled" : "Disabled"} color={s.enabled ? "success" : "default"} />
            <Box sx={{ flex: 1 }} />
            <Button size="small" href={`/history?strategy=${s.id}`}>
              Trades
            </Button>
            <Button size="small" href={`/positions?strategy=${s.id}`}>
              Positions
            </Button>
            <Button size="small" href={`/logs?strategy=${s.id}`}>
              Activity
            </Button>
          </Stack>
          <Summary s={s} />
          <Typography variant="body2" sx={{ mt: 1, fontWeight: 600 }}>
            Webhook URL
          </Typography>
          <Typography
            component="code"
            data-testid="strategy-url"
            sx={{ display: "block", overflowWrap: "anywhere", fontFamily: "monospace" }}
          >
            {s.webhookUrl}
          </Typography>
          <Typography variant="body2" sx={{ mt: 1, fontWeight: 600 }}>
            Alert message
          </Typography>
          <Box
            component="pre"
            data-testid="strategy-alert"
            sx={{
              m: 0,
              p: 1,
              bgcolor: "action.hover",
              borderRadius: 1,
              whiteSpace: "pre-wrap",
              overflowWrap: "anywhere",
              fontSize: 13,
            }}
          >
            {s.alertMessage}
          </Box>
          <Box component="details" sx={{ mt: 1 }}>
            <Box component="summary" sx={{ cursor: "pointer", fontWeight: 600, fontSize: 14 }}>
              Build another alert for {s.name} (exit, reverse, target position, limit orders)
            </Box>
            {/* The strategy's alerts trade at its own leverage: no leverage field here. */}
            <AlertBuilder
              secret={s.secret}
              url={s.webhookUrl}
              strategy={s.name}
              prefix={`s${index}`}
              title={`Alert for ${s.name}`}
              testId={`alert-builder-${s.id}`}
            />
          </Box>
          <HeartbeatRow id={s.id} heartbeat={extras.heartbeats[s.id] ?? null} now={extras.now} canManage={canManage} />
          {canManage ? (
            <Box sx={{ mt: 1.5 }}>
              <TestAlertCard
                bare
                action="/strategies"
                hidden={{ id: s.id, prefix: `s${index}` }}
                builderSearch={extras.builderSearch}
                sent={extras.test.strategyId === s.id ? extras.test.sent : null}
                initial={extras.test.strategyId === s.id ? extras.test.initial : null}
              />
            </Box>
          ) : null}
          {canManage ? (
            <Stack direction="row" spacing={1} useFlexGap sx={{ mt: 2, flexWrap: "wrap" }}>
              <IntentForm intent="toggle" values={{ id: s.id }}>
                <Button type="submit" variant="outlined" size="small">
                  {s.enabled ? "Disable" : "Enable"}
                </Button>
              </IntentForm>
              <IntentForm intent="rotate" values={{ id: s.id }}>
                <Button type="submit" variant="outlined" size="small">
                  Rotate secret
                </Button>
              </IntentForm>
              <IntentForm intent="delete" values={{ id: s.id }}>
                <Button type="submit" variant="outlined" color="error" size="small">
                  Delete
                </Button>
              </IntentForm>
              <Button size="small" href={editing === s.id ? "/strategies" : `/strategies?edit=${s.id}`}>
                {editing === s.id ? "Close editor" : "Edit"}
              </Button>
            </Stack>
          ) : null}
          {canManage && editing === s.id ? (
            <Box sx={{ mt: 2 }}>
              <StrategyForm strategy={s} lastResult={lastResult} />
            </Box>
          ) : null}
        </Paper>
      ))}
    </Stack>
  );
}

/** The strategy's missed-alert alarm: its state, and (admins) the interval it expects a heartbeat at. */
function HeartbeatRow({
  id,
  heartbeat,
  now,
  canManage,
}: {
  id: string;
  heartbeat: StrategyHeartbeat | null;
  now: number;
  canManage: boolean;
}) {
  const color = heartbeat?.state === "missed" ? "error" : heartbeat?.state === "ok" ? "success" : "default";
  return (
    <Stack
      direction="row"
      spacing={1}
      useFlexGap
      sx={{ mt: 1.5, alignItems: "center", flexWrap: "wrap" }}
      data-testid={`strategy-heartbeat-${id}`}
    >
      <Typography variant="body2" sx={{ fontWeight: 600 }}>
        Heartbeat
      </Typography>
      <Chip
        size="small"
        color={color}
        label={heartbeat ? heartbeat.state.toUpperCase() : "OFF"}
        data-testid="strategy-heartbeat-state"
      />
      <Typography variant="body2" color="text.secondary">
        {heartbeat
          ? heartbeatStateText(heartbeat, now)
          : 'Not expected. Send {"secret": "<its secret>", "action": "heartbeat"} on every bar close to be warned when alerts stop.'}
      </Typography>
      {canManage ? (
        <Form method="post" style={{ display: "flex", gap: 8, alignItems: "center", flexWrap: "wrap" }}>
          <input type="hidden" name="intent" value="heartbeat" />
          <input type="hidden" name="id" value={id} />
          <input
            name="intervalSeconds"
            type="number"
            min={60}
            defaultValue={heartbeat?.intervalSeconds ?? 3600}
            aria-label="Heartbeat every (seconds)"
            style={{ width: 100 }}
            data-testid="strategy-heartbeat-interval"
          />
          <Button type="submit" size="small" variant="outlined">
            {heartbeat ? "Save" : "Expect heartbeat"}
          </Button>
          {heartbeat ? (
            <Button type="submit" name="off" value="1" size="small" color="inherit">
              Stop
            </Button>
          ) : null}
        </Form>
      ) : null}
    </Stack>
  );
}
