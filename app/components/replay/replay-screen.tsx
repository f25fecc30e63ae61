// Replay (docs/spec/screens.md Replay, docs/decisions/047-replay.md): what the recorded alerts of
// a period would have made with up to three other rule sets, beside what really happened. A
// plain form post (Conform validates in the browser when JavaScript runs; the page's action
// replays and renders the results either way). The figures are a table; the equity curves are
// drawn with @mui/x-charts after hydration (replay-chart.client.tsx), with a table of the
// curves' points for a browser without JavaScript.
import { type SubmissionResult, getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { Form, useNavigation } from "@remix-run/react";
import { Suspense, lazy } from "react";
import { formatPnl } from "#app/core/format.ts";
import {
  MAX_REPLAY_TP_LEVELS,
  type ReplayRequest,
  type ReplayRuleSet,
  ReplayRequestSchema,
} from "#app/core/schemas/replay.ts";
import type { ReplayColumn, ReplayResult } from "#app/services/replay.server.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { NativeSelect } from "../forms.tsx";
import { Screen } from "../screen.tsx";

const ReplayChart = lazy(() => import("./replay-chart.client.tsx").then((m) => ({ default: m.ReplayEquityChart })));

/** The model the figures rest on, shown on the screen (docs/spec/screens.md Replay). */
export const REPLAY_ASSUMPTIONS = [
  "Alerts fill at their recorded price, or at the open of their minute's candle when they sent none.",
  "Within a 1-minute candle the order of high and low is unknown: the adverse extreme is assumed first (a stop before a take-profit in the same minute). Rule exits fill at their level, or at the open when a candle gaps through it.",
  "Fees at the app's taker rate on every fill; funding at each funding interval at the stored rate, else the configured one. Positions still open at the end close at the last candle's close.",
];

export interface ReplayScreenProps {
  /** The form's values: the defaults (last 30 days, rule sets from Trading Rules) or what was submitted. */
  values: ReplayRequest;
  strategies: { id: string; name: string }[];
  lastResult?: SubmissionResult<string[]> | null;
  replay?: ReplayResult | null;
}

const num = (v: number | string | undefined) => (v === undefined ? "" : String(v));
const checked = (v: unknown) => v === true || v === "on" || v === "true";

function RuleSetFields({
  index,
  set,
  errors,
}: {
  index: number;
  set: ReplayRuleSet | undefined;
  errors: Record<string, string[] | undefined>;
}) {
  const name = (field: string) => `sets[${index}].${field}`;
  const err = (field: string) => errors[name(field)]?.[0];
  const levels = Array.from({ length: MAX_REPLAY_TP_LEVELS }, (_, i) => set?.takeProfits?.[i]);
  return (
    <Paper variant="outlined" sx={{ p: 2, flex: "1 1 260px", minWidth: 0 }} data-testid={`rule-set-${index + 1}`}>
      <Stack direction="row" sx={{ alignItems: "center", justifyContent: "space-between" }}>
        <Typography variant="h6" component="h3">
          {`Rule set ${index + 1}`}
        </Typography>
        <FormControlLabel
          control={<Checkbox name={name("enabled")} defaultChecked={checked(set?.enabled)} />}
          label="Include"
        />
      </Stack>
      <Typography variant="subtitle2" sx={{ mt: 1 }}>
        Take profits (move from entry %, close %)
      </Typography>
      {err("takeProfits") ? (
        <Typography variant="caption" color="error" component="p">
          {err("takeProfits")}
        </Typography>
      ) : null}
      {levels.map((level, i) => (
        <Stack key={i} direction="row" spacing={1} sx={{ mt: 1 }}>
          <TextField
            size="small"
            label={`TP${i + 1} move %`}
            name={name(`takeProfits[${i}].price`)}
            defaultValue={num(level?.price)}
            slotProps={{ htmlInput: { inputMode: "decimal" } }}
            error={!!err(`takeProfits[${i}].price`)}
            helperText={err(`takeProfits[${i}].price`)}
          />
          <TextField
            size="small"
            label={`TP${i + 1} close %`}
            name={name(`takeProfits[${i}].close`)}
            defaultValue={num(level?.close)}
            slotProps={{ htmlInput: { inputMode: "decimal" } }}
          />
        </Stack>
      ))}
      <TextField
        size="small"
        fullWidth
        sx={{ mt: 2 }}
        label="Stop loss % (empty: none)"
        name={name("stopLoss")}
        defaultValue={num(set?.stopLoss)}
        error={!!err("stopLoss")}
        helperText={err("stopLoss")}
        slotProps={{ htmlInput: { inputMode: "decimal" } }}
      />
      <FormControlLabel
        sx={{ mt: 1 }}
        control={<Checkbox name={name("breakEven")} defaultChecked={checked(set?.breakEven)} />}
        label="Break-even after TP1"
      />
      <Typography variant="caption" color="text.secondary" component="p">
        The stop moves to entry + fees + the offset.
      </Typography>
      {err("breakEven") ? (
        <Typography variant="caption" color="error" component="p">
          {err("breakEven")}
        </Typography>
      ) : null}
      <Stack direction="row" spacing={1}>
        <TextField
          size="small"
          label="Break-even offset"
          name={name("breakEvenOffset")}
          defaultValue={num(set?.breakEvenOffset)}
          error={!!err("breakEvenOffset")}
          helperText={err("breakEvenOffset")}
          slotProps={{ htmlInput: { inputMode: "decimal" } }}
        />
        <NativeSelect
          name={name("breakEvenOffsetUnit")}
          label="Unit"
          defaultValue={set?.breakEvenOffsetUnit ?? "percent"}
          size="small"
          margin="none"
        >
          <option value="percent">% of entry</option>
          <option value="ticks">ticks</option>
        </NativeSelect>
      </Stack>
      <FormControlLabel
        sx={{ mt: 1 }}
        control={<Checkbox name={name("trailing")} defaultChecked={checked(set?.trailing)} />}
        label="Trailing stop"
      />
      <Stack direction="row" spacing={1}>
        <TextField
          size="small"
          label="Activation %"
          name={name("trailingActivation")}
          defaultValue={num(set?.trailingActivation)}
          slotProps={{ htmlInput: { inputMode: "decimal" } }}
        />
        <TextField
          size="small"
          label="Distance %"
          name={name("trailingRetrace")}
          defaultValue={num(set?.trailingRetrace)}
          error={!!err("trailingRetrace")}
          helperText={err("trailingRetrace")}
          slotProps={{ htmlInput: { inputMode: "decimal" } }}
        />
      </Stack>
    </Paper>
  );
}

const money = (v: string) => formatPnl(v);
const rate = (v: string | null) => (v === null ? "—" : `${v} %`);

/** The figures, one column per rule set and one for what really happened. */
function FiguresTable({ columns }: { columns: ReplayColumn[] }) {
  const levels = Math.max(0, ...columns.map((c) => c.summary.tpHitRates.length));
  const rows: { label: string; value: (c: ReplayColumn) => string }[] = [
    { label: "Net P&L (after fees, with funding)", value: (c) => money(c.summary.pnl) },
    { label: "Max drawdown", value: (c) => money(c.summary.maxDrawdown) },
    { label: "Win rate", value: (c) => rate(c.summary.winRate) },
    { label: "Closed trades", value: (c) => String(c.summary.trades) },
    { label: "Positions", value: (c) => String(c.summary.positions) },
    { label: "Fees", value: (c) => money(D_neg(c.summary.fees)) },
    { label: "Funding", value: (c) => money(c.summary.funding) },
    ...Array.from({ length: levels }, (_, i) => ({
      label: `TP${i + 1} hit rate`,
      value: (c: ReplayColumn) =>
        i < c.summary.tpHitRates.length ? `${rate(c.summary.tpHitRates[i] ?? null)} (${c.summary.tpHits[i]})` : "—",
    })),
  ];
  return (
    <TableContainer sx={{ overflowX: "auto" }}>
      <Table
        size="small"
        data-testid="replay-figures"
        sx={{ "& th, & td": { px: { xs: 0.75, sm: 2 }, fontSize: { xs: "0.8rem", sm: "0.875rem" } } }}
      >
        <TableHead>
          <TableRow>
            <TableCell>Figure</TableCell>
            {columns.map((c) => (
              <TableCell key={c.name} align="right" data-testid="replay-column">
                <Typography variant="subtitle2" component="span" sx={{ display: "block" }}>
                  {c.name}
                </Typography>
                <Typography variant="caption" color="text.secondary">
                  {c.rules ?? "what happened"}
                </Typography>
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <TableRow key={row.label}>
              <TableCell component="th" scope="row">
                {row.label}
              </TableCell>
              {columns.map((c) => (
                <TableCell key={c.name} align="right" sx={{ fontVariantNumeric: "tabular-nums", whiteSpace: "nowrap" }}>
                  {row.value(c)}
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** Fees are a cost: shown negative. */
const D_neg = (v: string) => (v.startsWith("-") ? v.slice(1) : v === "0" ? "0" : `-${v}`);

/** The equity curves' points as a table (the chart's figures; what a browser without JavaScript shows). */
function CurveTable({ columns, open }: { columns: ReplayColumn[]; open: boolean }) {
  return (
    <Box component="details" sx={{ mt: 2 }} open={open}>
      <Box component="summary" sx={{ cursor: "pointer" }}>
        Equity curve figures
      </Box>
      <Stack direction="row" spacing={2} sx={{ flexWrap: "wrap", mt: 1 }} useFlexGap>
        {columns.map((c) => (
          <Table key={c.name} size="small" sx={{ width: "auto" }} data-testid="replay-curve-table">
            <TableHead>
              <TableRow>
                <TableCell colSpan={2}>{c.name}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {c.summary.equity.map((p) => (
                <TableRow key={p.at}>
                  <TableCell>{new Date(p.at).toISOString().slice(0, 16).replace("T", " ")}</TableCell>
                  <TableCell align="right">{money(p.equity)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        ))}
      </Stack>
    </Box>
  );
}

function Results({ replay }: { replay: ReplayResult }) {
  const hydrated = useHydrated();
  const columns: ReplayColumn[] = [replay.real, ...replay.sets];
  const skipped = replay.sets.map((s) => s.skipped);
  return (
    <Paper sx={{ p: 2, mt: 3 }} data-testid="replay-results">
      <Typography variant="h5" component="h2">
        Results
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {replay.alerts} alert{replay.alerts === 1 ? "" : "s"} replayed from {replay.period.from.slice(0, 10)} to{" "}
        {replay.period.to.slice(0, 10)} (UTC) · fee rate {Number(replay.feeRate) * 100} % · funding{" "}
        {Number(replay.funding.rate) * 100} % every {replay.funding.intervalSeconds / 3600} h unless a rate is stored (
        {replay.funding.storedRates} stored) · {replay.tookMs} ms
        {skipped.some((n) => n > 0) ? ` · alerts that traded nothing per rule set: ${skipped.join(", ")}` : ""}
      </Typography>
      <FiguresTable columns={columns} />
      <Typography variant="h6" component="h3" sx={{ mt: 3 }}>
        Equity curve
      </Typography>
      {hydrated ? (
        <Box data-testid="replay-chart" sx={{ minHeight: 300 }}>
          <Suspense fallback={null}>
            <ReplayChart columns={columns} />
          </Suspense>
        </Box>
      ) : null}
      {/* Without JavaScript the chart cannot draw: its points show open as tables. */}
      <CurveTable columns={columns} open={!hydrated} />
    </Paper>
  );
}

export function ReplayScreen({ values, strategies, lastResult, replay }: ReplayScreenProps) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod?.toLowerCase() === "post";
  const [form] = useForm({
    id: "replay",
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ReplayRequestSchema }),
    shouldValidate: "onSubmit",
  });
  const errors = (form.allErrors ?? {}) as Record<string, string[] | undefined>;
  const listed = Object.entries(errors).flatMap(([, messages]) => messages ?? []);
  return (
    <Screen title="Replay">
      <Typography variant="body1" color="text.secondary" sx={{ mb: 2 }}>
        What your recorded alerts would have made with other take-profit, stop-loss, break-even and trailing settings,
        beside what really happened.
      </Typography>
      <Form method="post" {...getFormProps(form)} noValidate>
        {listed.length > 0 ? (
          <Alert severity="error" sx={{ mb: 2 }} data-testid="replay-errors">
            {[...new Set(listed)].join(" · ")}
          </Alert>
        ) : null}
        <Stack direction="row" spacing={2} sx={{ flexWrap: "wrap", alignItems: "flex-start", mb: 2 }} useFlexGap>
          <TextField
            type="date"
            name="from"
            label="From"
            defaultValue={values.from}
            size="small"
            slotProps={{ inputLabel: { shrink: true } }}
            error={!!errors.from}
            helperText={errors.from?.[0]}
          />
          <TextField
            type="date"
            name="to"
            label="To"
            defaultValue={values.to}
            size="small"
            slotProps={{ inputLabel: { shrink: true } }}
            error={!!errors.to}
            helperText={errors.to?.[0]}
          />
          <Box sx={{ minWidth: 200 }}>
            <NativeSelect name="strategy" label="Strategy" defaultValue={values.strategy} size="small" margin="none">
              <option value="all">All strategies</option>
              <option value="default">default (global secret)</option>
              {strategies.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </NativeSelect>
          </Box>
          <Button type="submit" variant="contained" disabled={busy} data-testid="run-replay">
            {busy ? "Replaying…" : "Run replay"}
          </Button>
        </Stack>
        <Stack direction="row" spacing={2} sx={{ flexWrap: "wrap" }} useFlexGap>
          {[0, 1, 2].map((i) => (
            <RuleSetFields key={i} index={i} set={values.sets?.[i]} errors={errors} />
          ))}
        </Stack>
      </Form>
      <Alert severity="info" sx={{ mt: 2 }} data-testid="replay-assumptions">
        {REPLAY_ASSUMPTIONS.map((line) => (
          <Typography key={line} variant="body2" component="p">
            {line}
          </Typography>
        ))}
      </Alert>
      {replay ? <Results replay={replay} /> : null}
    </Screen>
  );
}
