// The Performance charts drawn with @mui/x-charts (themed by the app's MUI theme). Loaded only
// in the browser after hydration (performance-screen.tsx imports it lazily): the server
// renders the same data as tables, so pages never pay for the charts' code.
import { useTheme } from "@mui/material/styles";
import { BarChart } from "@mui/x-charts/BarChart";
import { LineChart } from "@mui/x-charts/LineChart";
import type { DailyBar, EquityPoint, GroupPnl, HistogramBin } from "#app/core/performance/charts.ts";
import { formatPnl } from "#app/core/format.ts";

const num = (v: string | null) => (v === null ? null : Number(v));
const money = (v: number | null) => (v === null ? "—" : formatPnl(v.toFixed(2)));
const dateTime = (v: Date | number) =>
  `${new Date(v).toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
  })} UTC`;
const dateOnly = (v: Date | number) =>
  new Date(v).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const timeOnly = (v: Date | number) =>
  new Date(v).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
const timeWithSeconds = (v: Date | number) =>
  new Date(v).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone: "UTC" });

const tickFormatters = { date: dateOnly, time: timeOnly, seconds: timeWithSeconds };

/**
 * The time axis of a curve: ticks as dates from two days on (else every tick read "Nov 26"),
 * as times below, with seconds under 15 minutes (else six ticks read "11:05 AM").
 */
export function tickUnit(spanMs: number): keyof typeof tickFormatters {
  return spanMs >= 2 * 86_400_000 ? "date" : spanMs >= 15 * 60_000 ? "time" : "seconds";
}

function timeAxis(points: EquityPoint[]) {
  const span = points.length > 1 ? points[points.length - 1]!.at - points[0]!.at : 0;
  const tick = tickFormatters[tickUnit(span)];
  return [
    {
      data: points.map((p) => new Date(p.at)),
      scaleType: "time" as const,
      valueFormatter: (v: Date, ctx: { location: string }) => (ctx.location === "tick" ? tick(v) : dateTime(v)),
    },
  ];
}

/** What the equity and drawdown charts share: time along x, money up y. */
const curveAxes = (points: EquityPoint[], height: number) => ({
  height,
  skipAnimation: true,
  margin: { left: 8, right: 16 },
  xAxis: timeAxis(points),
  yAxis: [{ valueFormatter: (v: number | null) => money(v), width: 64 }],
});

/** What the bar charts share: no animation, no legend, the curves' margins. */
const barFrame = (height: number) => ({
  height,
  skipAnimation: true,
  hideLegend: true,
  margin: { left: 8, right: 16 },
});

/** A money curve of one field of the equity points, without marks (the equity, realized and drawdown lines). */
const moneyCurve = (
  points: EquityPoint[],
  field: "equity" | "realized" | "drawdown",
  label: string,
  color: string,
  curve: "linear" | "stepAfter" = "linear",
) => ({
  id: field,
  label,
  data: points.map((p) => num(p[field])),
  showMark: false,
  curve,
  color,
  valueFormatter: money,
});

/** Bars coloured by sign: losses red, gains green (the value axis' piecewise colour map). */
function useSignColors() {
  const theme = useTheme();
  return {
    type: "piecewise" as const,
    thresholds: [0],
    colors: [theme.palette.error.main, theme.palette.success.main],
  };
}

export function EquityChart({
  points,
  height = 280,
  compact = false,
}: {
  points: EquityPoint[];
  height?: number;
  compact?: boolean;
}) {
  const theme = useTheme();
  return (
    <LineChart
      {...curveAxes(points, height)}
      hideLegend={compact}
      series={[
        moneyCurve(points, "equity", "Equity (realized + unrealized)", theme.palette.primary.main),
        ...(compact ? [] : [moneyCurve(points, "realized", "Realized", theme.palette.secondary.main, "stepAfter")]),
      ]}
    />
  );
}

export function DrawdownChart({ points, height = 220 }: { points: EquityPoint[]; height?: number }) {
  const theme = useTheme();
  return (
    <LineChart
      {...curveAxes(points, height)}
      hideLegend
      series={[{ ...moneyCurve(points, "drawdown", "Drawdown", theme.palette.error.main), area: true }]}
    />
  );
}

export function DailyPnlChart({ bars, height = 260 }: { bars: DailyBar[]; height?: number }) {
  const colorMap = useSignColors();
  return (
    <BarChart
      {...barFrame(height)}
      xAxis={[
        {
          scaleType: "band",
          data: bars.map((b) => b.day),
          valueFormatter: (v: string, ctx) => (ctx.location === "tick" ? v.slice(5) : v),
        },
      ]}
      yAxis={[{ valueFormatter: (v: number | null) => money(v), width: 64, colorMap }]}
      series={[{ id: "daily", label: "Realized P&L", data: bars.map((b) => Number(b.pnl)), valueFormatter: money }]}
    />
  );
}

export function GroupPnlChart({ groups, height }: { groups: GroupPnl[]; height?: number }) {
  const colorMap = useSignColors();
  return (
    <BarChart
      {...barFrame(height ?? Math.max(140, 48 + groups.length * 36))}
      layout="horizontal"
      yAxis={[{ scaleType: "band", data: groups.map((g) => g.label), width: 110 }]}
      xAxis={[{ valueFormatter: (v: number | null) => money(v), colorMap }]}
      series={[{ id: "group", label: "Realized P&L", data: groups.map((g) => Number(g.pnl)), valueFormatter: money }]}
    />
  );
}

export function DistributionChart({ bins, height = 240 }: { bins: HistogramBin[]; height?: number }) {
  const theme = useTheme();
  return (
    <BarChart
      {...barFrame(height)}
      xAxis={[
        {
          scaleType: "band",
          data: bins.map((b) => b.from),
          valueFormatter: (v: string, ctx) =>
            ctx.location === "tick"
              ? formatPnl(v)
              : `${formatPnl(v)} to ${formatPnl(bins.find((b) => b.from === v)?.to ?? v)}`,
          colorMap: {
            type: "ordinal",
            values: bins.map((b) => b.from),
            colors: bins.map((b) => (Number(b.from) < 0 ? theme.palette.error.main : theme.palette.success.main)),
          },
        },
      ]}
      yAxis={[{ width: 40, tickMinStep: 1 }]}
      series={[{ id: "count", label: "Trades", data: bins.map((b) => b.count) }]}
    />
  );
}
