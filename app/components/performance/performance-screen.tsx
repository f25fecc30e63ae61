// The Performance screen and the dashboard's compact card (issue 13,
// docs/decisions/031-performance-charts.md): equity curve, daily P&L, drawdown, P&L by symbol
// and by strategy, win/loss distribution, over 7 days, 30 days or all time.
//
// The server renders every chart's data as a table (what a browser without JavaScript
// shows, and what screen readers read); after hydration the charts' code (@mui/x-charts,
// performance-charts.client.tsx) is loaded lazily and each chart appears above its table,
// which folds into a "Show as table" disclosure. The range is a plain link (?range=), and the
// data refreshes from GET /api/performance-charts when a trade closes (live trade_update)
// and every two minutes.
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import Table from "@mui/material/Table";
import Typography from "@mui/material/Typography";
import { Link } from "@remix-run/react";
import { type ComponentProps, type ReactNode, Suspense, lazy } from "react";
import { D } from "#app/core/decimal.ts";
import { formatPnl } from "#app/core/format.ts";
import {
  type DailyBar,
  type DailyTable,
  type EquityPoint,
  type GroupPnl,
  type HistogramBin,
  type PerformanceCharts,
  dailyTable,
} from "#app/core/performance/charts.ts";
import { CHART_RANGES, CHART_RANGE_LABELS, type ChartRange } from "#app/core/schemas/performance-charts.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { ColumnHeads } from "../ui/column-heads.tsx";
import { PanelCard } from "../ui/panel-card.tsx";
import { S } from "./performance-screen.css.ts";

const Charts = {
  Equity: lazy(() => import("./performance-charts.client.tsx").then((m) => ({ default: m.EquityChart }))),
  Drawdown: lazy(() => import("./performance-charts.client.tsx").then((m) => ({ default: m.DrawdownChart }))),
  Daily: lazy(() => import("./performance-charts.client.tsx").then((m) => ({ default: m.DailyPnlChart }))),
  Group: lazy(() => import("./performance-charts.client.tsx").then((m) => ({ default: m.GroupPnlChart }))),
  Distribution: lazy(() => import("./performance-charts.client.tsx").then((m) => ({ default: m.DistributionChart }))),
};

export const CHARTS_POLL_MS = 120_000;

const pnlClass = (v: string) => (D(v).gt(0) ? "pd-c-success" : D(v).lt(0) ? "pd-c-error" : undefined);
const Pnl = ({ value }: { value: string }) => <span className={pnlClass(value)}>{formatPnl(value)}</span>;
const when = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** A chart (after hydration) over its table (always rendered; folded once the chart shows). */
function ChartPanel({
  title,
  testId,
  height,
  chart,
  table,
  className,
}: {
  title: string;
  testId: string;
  height: number;
  chart: ReactNode;
  table: ReactNode;
  className?: string;
}) {
  const hydrated = useHydrated();
  return (
    <PanelCard title={title} data-testid={testId} className={className}>
      {hydrated ? (
        <div className={S.chart} data-testid={`${testId}-chart`}>
          <Suspense
            fallback={
              <div className={S.placeholder} style={{ height }}>
                Loading chart…
              </div>
            }
          >
            {chart}
          </Suspense>
        </div>
      ) : null}
      <details className={S.details} open={!hydrated}>
        <summary>{hydrated ? "Show as table" : "Table"}</summary>
        <div className={S.scroll} data-testid={`${testId}-table`}>
          {table}
        </div>
      </details>
    </PanelCard>
  );
}

function DataTable({ caption, head, rows }: { caption: string; head: string[]; rows: ReactNode[][] }) {
  return (
    <Table size="small">
      <caption className={S.srOnly}>{caption}</caption>
      <ColumnHeads columns={head} right={head.slice(1)} />
      <tbody>
        {rows.map((cells, r) => (
          <tr key={r} className="pd-tr">
            {cells.map((cell, i) =>
              i === 0 ? (
                <th key={i} scope="row" className="pd-td">
                  {cell}
                </th>
              ) : (
                <td key={i} className="pd-td pd-right">
                  {cell}
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

const equityTable = (points: EquityPoint[]) => (
  <DataTable
    caption="Equity curve"
    head={["Time", "Realized", "Unrealized", "Equity", "Drawdown"]}
    rows={points.map((p) => [
      when(p.at),
      <Pnl key="r" value={p.realized} />,
      p.unrealized === null ? "—" : <Pnl key="u" value={p.unrealized} />,
      <Pnl key="e" value={p.equity} />,
      formatPnl(p.drawdown),
    ])}
  />
);

const dailyBarsTable = (bars: DailyBar[]) => (
  <DataTable
    caption="Daily realized P&L"
    head={["Day (UTC)", "Realized P&L", "Trades", "Wins", "Losses"]}
    rows={bars.map((b) => [b.day, <Pnl key="p" value={b.pnl} />, b.trades, b.wins, b.losses])}
  />
);

const groupTable = (groups: GroupPnl[], name: string) => (
  <DataTable
    caption={`Realized P&L by ${name}`}
    head={[name[0]!.toUpperCase() + name.slice(1), "Realized P&L", "Trades", "Wins", "Losses"]}
    rows={groups.map((g) => [g.label, <Pnl key="p" value={g.pnl} />, g.trades, g.wins, g.losses])}
  />
);

const distributionTable = (bins: HistogramBin[]) => (
  <DataTable
    caption="Win/loss distribution"
    head={["Net P&L", "Trades"]}
    rows={bins.map((b) => [`${formatPnl(b.from)} to ${formatPnl(b.to)}`, b.count])}
  />
);

/** Links to the same page with ?range= (work without JavaScript). */
export function RangeLinks({ range, path }: { range: ChartRange; path: string }) {
  return (
    <nav className={S.ranges} aria-label="Range" data-testid="chart-ranges">
      {CHART_RANGES.map((r) => (
        <Button
          key={r}
          component={Link}
          to={`${path}?range=${r}`}
          size="small"
          variant={r === range ? "contained" : "outlined"}
          aria-current={r === range ? "page" : undefined}
          preventScrollReset
        >
          {CHART_RANGE_LABELS[r]}
        </Button>
      ))}
    </nav>
  );
}

const EMPTY_TEXT = "No closed trades in this range yet: the charts fill in as positions close.";

function useCharts(initial: PerformanceCharts, detail: "full" | "compact") {
  const url = `/api/performance-charts?range=${initial.range}${detail === "compact" ? "&detail=compact" : ""}`;
  return (
    useApiQuery<PerformanceCharts>(url, { initialData: initial, refetchIntervalMs: CHARTS_POLL_MS }).data ?? initial
  );
}

function Total({ label, testId, children }: { label: string; testId?: string; children: ReactNode }) {
  return (
    <div className={S.total}>
      <Typography variant="caption" color="text.secondary" component="div">
        {label}
      </Typography>
      <Typography variant="h3" component="div" data-testid={testId}>
        {children}
      </Typography>
    </div>
  );
}

export function PerformanceScreen({ initial }: { initial: PerformanceCharts }) {
  const data = useCharts(initial, "full");
  const t = data.totals;
  const empty =
    t.trades === 0 &&
    D(t.realizedPnl).eq(0) &&
    data.equity.every((p) => p.unrealized === null || D(p.unrealized).eq(0));
  const panels: ComponentProps<typeof ChartPanel>[] = [
    {
      className: S.wide,
      title: "Equity curve",
      testId: "chart-equity",
      height: 280,
      chart: <Charts.Equity points={data.equity} />,
      table: equityTable(data.equity),
    },
    {
      title: "Daily P&L",
      testId: "chart-daily",
      height: 260,
      chart: <Charts.Daily bars={data.daily} />,
      table: dailyBarsTable(data.daily),
    },
    {
      title: "Drawdown",
      testId: "chart-drawdown",
      height: 220,
      chart: <Charts.Drawdown points={data.equity} />,
      table: equityTable(data.equity),
    },
    {
      title: "P&L by symbol",
      testId: "chart-symbol",
      height: 160,
      chart: <Charts.Group groups={data.bySymbol ?? []} />,
      table: groupTable(data.bySymbol ?? [], "symbol"),
    },
    {
      title: "P&L by strategy",
      testId: "chart-strategy",
      height: 160,
      chart: <Charts.Group groups={data.byStrategy ?? []} />,
      table: groupTable(data.byStrategy ?? [], "strategy"),
    },
    {
      className: S.wide,
      title: "Win/loss distribution",
      testId: "chart-distribution",
      height: 240,
      chart: <Charts.Distribution bins={data.distribution ?? []} />,
      table: distributionTable(data.distribution ?? []),
    },
  ];
  return (
    <div data-testid="performance-screen">
      <RangeLinks range={data.range} path="/performance" />
      <div className={S.totals} data-testid="performance-totals">
        <Total label="Realized P&L" testId="total-realized">
          <Pnl value={t.realizedPnl} />
        </Total>
        <Total label="Closing trades">{t.trades}</Total>
        <Total label="Wins / losses">
          {t.wins} / {t.losses}
        </Total>
        <Total label="Max drawdown">{formatPnl(t.maxDrawdown)}</Total>
      </div>
      {empty ? (
        <Card variant="outlined" data-testid="performance-empty">
          <CardContent>
            <Typography className={S.empty}>{EMPTY_TEXT}</Typography>
          </CardContent>
        </Card>
      ) : (
        <div className={S.grid}>
          {panels.map((panel) => (
            <ChartPanel key={panel.testId} {...panel} />
          ))}
        </div>
      )}
    </div>
  );
}

/**
 * The dashboard's card: the last 30 days' equity curve and daily P&L, linking to the screen.
 * Light on the server (the dashboard renders on every visit, decision 014): the loader sends
 * one small table (the days that closed something, with the equity at each day's end); after
 * hydration the card fetches the compact series and draws the charts over the folded table.
 */
export function DashboardPerformanceCard({ initial }: { initial: DailyTable }) {
  const hydrated = useHydrated();
  const { data } = useApiQuery<PerformanceCharts>("/api/performance-charts?range=30d&detail=compact", {
    enabled: hydrated,
    refetchIntervalMs: CHARTS_POLL_MS,
  });
  const table = data ? dailyTable(data) : initial;
  const empty = table.trades === 0 && D(table.realizedPnl).eq(0);
  const chart = (testId: string, title: string, node: ReactNode) => (
    <div className={S.chart} data-testid={testId}>
      <Typography variant="subtitle2" component="h3" color="text.secondary">
        {title}
      </Typography>
      {data ? (
        <Suspense
          fallback={
            <div className={S.placeholder} style={{ height: 200 }}>
              Loading chart…
            </div>
          }
        >
          {node}
        </Suspense>
      ) : (
        <div className={S.placeholder} style={{ height: 200 }}>
          Loading chart…
        </div>
      )}
    </div>
  );
  return (
    <PanelCard
      data-testid="dashboard-charts"
      title="Performance (30 days)"
      action={
        <Button component={Link} to="/performance" size="small" variant="outlined">
          Open Performance
        </Button>
      }
    >
      {empty ? (
        <Typography color="text.secondary" className={S.empty}>
          {EMPTY_TEXT}
        </Typography>
      ) : (
        <>
          {hydrated ? (
            <div className={S.compact}>
              {chart(
                "dashboard-equity-chart",
                "Equity",
                data ? <Charts.Equity points={data.equity} height={200} compact /> : null,
              )}
              {chart(
                "dashboard-daily-chart",
                "Daily P&L",
                data ? <Charts.Daily bars={data.daily} height={200} /> : null,
              )}
            </div>
          ) : null}
          <details className={S.details} open={!hydrated}>
            <summary>{hydrated ? "Show as table" : `Latest days with closed trades (every day: Performance)`}</summary>
            <div className={S.scroll} data-testid="dashboard-daily-table">
              <DataTable
                caption="Daily realized P&L and equity: the latest days with closed trades, and the 30 days' total"
                head={["Day (UTC)", "Realized P&L", "Trades", "Equity (end of day)"]}
                rows={[
                  ...table.rows.map((b) => [
                    b.day,
                    <Pnl key="p" value={b.pnl} />,
                    b.trades,
                    b.equity === null ? "—" : <Pnl key="e" value={b.equity} />,
                  ]),
                  [
                    "30 days",
                    <Pnl key="t" value={table.realizedPnl} />,
                    table.trades,
                    <Pnl key="n" value={table.equityNow} />,
                  ],
                ]}
              />
            </div>
          </details>
        </>
      )}
    </PanelCard>
  );
}
