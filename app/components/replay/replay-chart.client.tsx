// The Replay screen's equity curves (docs/spec/screens.md Replay), one line per column, drawn
// with @mui/x-charts in the browser only (replay-screen.tsx loads it lazily after hydration; the
// server renders the same points as a table). The columns' curves have points at different
// instants: they share one time axis, each line holding its last value between its own points.
import { useTheme } from "@mui/material/styles";
import { LineChart } from "@mui/x-charts/LineChart";
import { formatPnl } from "#app/core/format.ts";
import type { ReplayColumn } from "#app/services/replay.server.ts";

const money = (v: number | null) => (v === null ? "—" : formatPnl(v.toFixed(2)));
const day = (v: Date) => v.toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
const time = (v: Date) => v.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", timeZone: "UTC" });
const dateTime = (v: Date) =>
  `${v.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC" })} UTC`;

/** One time axis for every column; each series steps to its latest point at or before each instant. */
export function alignCurves(columns: ReplayColumn[]): { times: number[]; series: (number | null)[][] } {
  const times = [...new Set(columns.flatMap((c) => c.summary.equity.map((p) => p.at)))].sort((a, b) => a - b);
  const series = columns.map((c) => {
    const points = c.summary.equity;
    let i = -1;
    return times.map((t) => {
      while (i + 1 < points.length && points[i + 1]!.at <= t) i++;
      return i < 0 ? null : Number(points[i]!.equity);
    });
  });
  return { times, series };
}

export function ReplayEquityChart({ columns, height = 300 }: { columns: ReplayColumn[]; height?: number }) {
  const theme = useTheme();
  const colors = [
    theme.palette.text.secondary,
    theme.palette.primary.main,
    theme.palette.success.main,
    theme.palette.warning.main,
  ];
  const { times, series } = alignCurves(columns);
  // Ticks as dates over two days or more, as times within a shorter period (else every tick reads the same day).
  const tick = times.length > 1 && times[times.length - 1]! - times[0]! >= 2 * 86_400_000 ? day : time;
  return (
    <LineChart
      height={height}
      skipAnimation
      margin={{ left: 8, right: 16 }}
      xAxis={[
        {
          data: times.map((t) => new Date(t)),
          scaleType: "time",
          valueFormatter: (v: Date, ctx: { location: string }) => (ctx.location === "tick" ? tick(v) : dateTime(v)),
        },
      ]}
      yAxis={[{ valueFormatter: (v: number | null) => money(v), width: 64 }]}
      series={columns.map((c, i) => ({
        id: c.name,
        label: c.name,
        data: series[i]!,
        showMark: false,
        curve: "stepAfter" as const,
        color: colors[i % colors.length],
        valueFormatter: money,
      }))}
    />
  );
}
