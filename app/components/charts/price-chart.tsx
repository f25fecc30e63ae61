// A position's (or trade's) price chart (issue 13, decision 032): the app's 1-minute candles
// drawn by TradingView's lightweight-charts, with a price line per level the rules act on
// (entry, each take-profit, stop loss, break-even, trailing stop: app/core/rules/levels.ts)
// and a marker per fill (entries and exits).
// lightweight-charts needs `window`: it is imported inside an effect, so the server never
// loads it. The server (and a browser without JavaScript) renders the levels and the last
// candles as tables instead; once the chart is drawn the candle table goes.
// New data (the details poll every 10 s) redraws the candles, lines and markers in place.
// An open position's chart, for whoever may trade, lets the trader act on a mark (decision
// 048): each stop, take-profit, break-even and trailing row of the levels list has an Edit
// link to the one edit form (/positions?edit=<id>, on that field, back to this page), which
// works without JavaScript; with it a click on the mark's line on the chart follows the same link.
import { type Theme, useTheme } from "@mui/material/styles";
import { useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import type { ChartLevelKind } from "#app/core/rules/levels.ts";
import { type EditField, positionEditHref } from "#app/core/schemas/position-edit.ts";
import type { PriceChartData } from "#app/core/schemas/candles.ts";

export type { PriceChartData };

/** How many of the newest candles the no-JavaScript table lists. */
export const FALLBACK_CANDLES = 8;
const HEIGHT = 300;
/** Minutes shown at first (scroll left for older ones). */
const VISIBLE_MINUTES = 240;

const utcMinute = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const utcDateTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** Decimal places the axis shows: the most the recent candles have (the price tick), 2 to 8. */
export function pricePrecision(candles: PriceChartData["candles"]): number {
  let most = 2;
  const see = (v: string) => {
    const dot = v.indexOf(".");
    if (dot >= 0) most = Math.max(most, v.length - dot - 1);
  };
  for (const c of candles.slice(-50)) [c.open, c.high, c.low, c.close].forEach(see);
  return Math.min(most, 8);
}

/**
 * The nearest ancestor that scrolls sideways (the Positions table's box, whose table may be
 * wider than the screen): the chart is kept to its visible width so the price axis shows.
 */
function sidewaysScroller(element: HTMLElement): HTMLElement | null {
  for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
    if (/(auto|scroll)/.test(getComputedStyle(node).overflowX)) return node;
  }
  return null;
}

type Palette = Theme["palette"];
function levelColor(kind: ChartLevelKind, palette: Palette): string {
  switch (kind) {
    case "entry":
      return palette.info.main;
    case "tp":
      return palette.success.main;
    case "sl":
      return palette.error.main;
    case "breakeven":
      return palette.warning.main;
    case "trailing":
      return palette.secondary.main;
  }
}

/** How near (px) a click must land to a mark's line to open its edit. */
const LINE_HIT_PX = 6;

export function PriceChart({
  data,
  title = "Price chart",
  edit = null,
}: {
  data: PriceChartData;
  title?: string;
  /** An open position the user may edit: its marks offer Edit (decision 048); `back` is where a save returns. */
  edit?: { id: string; back?: string | null } | null;
}) {
  const theme = useTheme<Theme>();
  const navigate = useNavigate();
  const editHref = (field: EditField) => positionEditHref(edit!.id, { focus: field, back: edit!.back ?? null });
  // The click handler is subscribed once: it reads the marks and the link through this ref.
  const editRef = useRef<((y: number) => string | null) | null>(null);
  const palette = theme.palette;
  const container = useRef<HTMLDivElement>(null);
  const [mounted, setMounted] = useState(false); // JavaScript runs: make room for the chart
  const [drawn, setDrawn] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [lineTitles, setLineTitles] = useState<string[]>([]);
  // The chart, its series and what is drawn on it: kept across data updates.
  const chartRef = useRef<{
    chart: import("lightweight-charts").IChartApi;
    series: import("lightweight-charts").ISeriesApi<"Candlestick">;
    lines: import("lightweight-charts").IPriceLine[];
    markers: import("lightweight-charts").ISeriesMarkersPluginApi<import("lightweight-charts").Time>;
    /** The levels' range, which the price scale always includes (so every line is on screen). */
    range: { min: number; max: number } | null;
    fitted: boolean;
  } | null>(null);
  const hasCandles = data.candles.length > 0;

  // Create once (client only), remove on unmount.
  useEffect(() => {
    if (!hasCandles) return;
    setMounted(true);
    let cancelled = false;
    import("lightweight-charts")
      .then(({ createChart, CandlestickSeries, ColorType, createSeriesMarkers }) => {
        if (cancelled || !container.current) return;
        const chart = createChart(container.current, {
          autoSize: true,
          height: HEIGHT,
          layout: {
            background: { type: ColorType.Solid, color: palette.background.paper },
            textColor: palette.text.secondary,
            fontFamily: theme.typography.fontFamily,
            attributionLogo: false,
          },
          grid: { vertLines: { color: palette.divider }, horzLines: { color: palette.divider } },
          rightPriceScale: { borderColor: palette.divider, scaleMargins: { top: 0.08, bottom: 0.08 } },
          timeScale: { borderColor: palette.divider, timeVisible: true, secondsVisible: false },
        });
        const series = chart.addSeries(CandlestickSeries, {
          upColor: palette.success.main,
          downColor: palette.error.main,
          borderVisible: false,
          wickUpColor: palette.success.main,
          wickDownColor: palette.error.main,
          autoscaleInfoProvider: (original: () => import("lightweight-charts").AutoscaleInfo | null) => {
            const info = original();
            const range = chartRef.current?.range;
            if (!info?.priceRange || !range) return info;
            return {
              ...info,
              priceRange: {
                minValue: Math.min(info.priceRange.minValue, range.min),
                maxValue: Math.max(info.priceRange.maxValue, range.max),
              },
            };
          },
        });
        // A click on (or within LINE_HIT_PX of) an editable mark's line opens its edit; the cursor says so.
        const markAt = (y: number | undefined) => (y === undefined ? null : (editRef.current?.(y) ?? null));
        chart.subscribeClick((param) => {
          const href = markAt(param.point?.y);
          if (href) navigate(href);
        });
        chart.subscribeCrosshairMove((param) => {
          if (container.current) container.current.style.cursor = markAt(param.point?.y) ? "pointer" : "";
        });
        chartRef.current = {
          chart,
          series,
          lines: [],
          markers: createSeriesMarkers(series, []),
          range: null,
          fitted: false,
        };
        setDrawn(true);
      })
      .catch((error: Error) => {
        if (cancelled) return;
        setMounted(false);
        setFailure(`The chart could not load (${error.message}): the levels and prices are listed below.`);
      });
    return () => {
      cancelled = true;
      chartRef.current?.chart.remove();
      chartRef.current = null;
      setDrawn(false);
    };
    // The palette is fixed for the page's life; a symbol change remounts the component.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [hasCandles]);

  // Draw (and redraw on every new answer): candles, one price line per level, the fills.
  useEffect(() => {
    const current = chartRef.current;
    if (!drawn || !current) return;
    const precision = pricePrecision(data.candles);
    const prices = data.levels.map((l) => Number(l.price)).filter(Number.isFinite);
    current.range = prices.length ? { min: Math.min(...prices), max: Math.max(...prices) } : null;
    current.series.applyOptions({ priceFormat: { type: "price", precision, minMove: 1 / 10 ** precision } });
    const times = data.candles.map((c) => Math.floor(c.time / 1000));
    current.series.setData(
      data.candles.map((c, i) => ({
        time: times[i] as import("lightweight-charts").UTCTimestamp,
        open: Number(c.open),
        high: Number(c.high),
        low: Number(c.low),
        close: Number(c.close),
      })),
    );
    for (const line of current.lines) current.series.removePriceLine(line);
    current.lines = data.levels.map((level) =>
      current.series.createPriceLine({
        price: Number(level.price),
        color: levelColor(level.kind, palette),
        lineWidth: level.kind === "entry" ? 2 : 1,
        lineStyle: level.kind === "entry" ? 0 : 2, // solid entry, dashed levels
        axisLabelVisible: true,
        title: level.title,
      }),
    );
    setLineTitles(data.levels.map((l) => l.title));
    editRef.current = edit
      ? (y) => {
          let best: { href: string; distance: number } | null = null;
          for (const level of data.levels) {
            if (!level.edit) continue;
            const at = current.series.priceToCoordinate(Number(level.price));
            if (at === null) continue;
            const distance = Math.abs(at - y);
            if (distance <= LINE_HIT_PX && (!best || distance < best.distance))
              best = { href: editHref(level.edit), distance };
          }
          return best?.href ?? null;
        }
      : null;
    // The first time: the last VISIBLE_MINUTES (all, when fewer), with room on the right so the
    // newest candles and fills are not under the lines' labels; later answers keep whatever
    // the user scrolled or zoomed to.
    if (!current.fitted && times.length > 0) {
      const n = times.length;
      current.chart.timeScale().setVisibleLogicalRange({
        from: Math.max(-0.5, n - VISIBLE_MINUTES),
        to: n - 0.5 + Math.max(4, Math.ceil(Math.min(n, VISIBLE_MINUTES) * 0.2)),
      });
      current.fitted = true;
    }
    // A marker sits on the candle of its minute (fills outside the candles' range are left out).
    const first = times[0] ?? 0;
    const last = (times[times.length - 1] ?? 0) + 59;
    current.markers.setMarkers(
      data.markers
        .map((m) => ({ m, t: Math.floor(m.time / 60_000) * 60 }))
        .filter(({ t }) => t >= first && t <= last)
        .map(({ m, t }) => ({
          time: t as import("lightweight-charts").UTCTimestamp,
          position: m.side === "buy" ? ("belowBar" as const) : ("aboveBar" as const),
          shape: m.side === "buy" ? ("arrowUp" as const) : ("arrowDown" as const),
          color: m.kind === "entry" ? palette.info.main : palette.warning.main,
          text: m.kind === "entry" ? "Entry" : "Exit",
        })),
    );
    // editHref follows `edit`, which is in the dependencies.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [drawn, data, palette, edit?.id, edit?.back]);

  // Inside a table wider than the screen, the chart takes the visible width only.
  useEffect(() => {
    const element = container.current;
    if (!mounted || !element) return;
    const scroller = sidewaysScroller(element);
    if (!scroller) return;
    const fit = () => {
      const offset = element.getBoundingClientRect().left - scroller.getBoundingClientRect().left + scroller.scrollLeft;
      const room = scroller.clientWidth - offset - 16;
      element.style.maxWidth = room > 200 ? `${room}px` : "";
    };
    fit();
    const observer = new ResizeObserver(fit);
    observer.observe(scroller);
    return () => observer.disconnect();
  }, [mounted]);

  const newest = data.candles.slice(-FALLBACK_CANDLES).reverse();
  return (
    <section
      className="pd-price-chart"
      data-testid="price-chart"
      data-symbol={data.symbol}
      aria-label={`${title} ${data.symbol}`}
    >
      <div style={{ display: "flex", flexWrap: "wrap", alignItems: "baseline", gap: 8, marginBottom: 8 }}>
        <h3 style={{ margin: 0, fontSize: "0.875rem", fontWeight: 500 }}>
          {title} · {data.symbol}
        </h3>
        <span style={{ fontSize: "0.75rem", color: palette.text.secondary }}>
          1-minute candles, UTC
          {hasCandles
            ? ` · ${utcDateTime(data.candles[0]!.time)} – ${utcMinute(data.candles[data.candles.length - 1]!.time)}`
            : ""}
        </span>
      </div>
      {hasCandles ? (
        <div
          ref={container}
          data-testid="price-chart-canvas"
          data-lines={lineTitles.join("|")}
          style={{ width: "100%", height: mounted ? HEIGHT : 0, position: "relative" }}
        />
      ) : (
        <p
          data-testid="price-chart-empty"
          style={{ fontSize: "0.875rem", color: palette.text.secondary, margin: "8px 0" }}
        >
          No prices recorded for this range yet: candles appear as the price feed ticks.
        </p>
      )}
      {failure ? (
        <p role="alert" style={{ fontSize: "0.875rem", color: palette.error.main }}>
          {failure}
        </p>
      ) : null}
      <div style={{ display: "flex", flexWrap: "wrap", gap: 16, marginTop: 8 }}>
        <table data-testid="chart-levels" style={{ borderCollapse: "collapse", fontSize: "0.8125rem" }}>
          <caption style={{ textAlign: "left", fontWeight: 500, paddingBottom: 4 }}>Levels</caption>
          <tbody>
            {data.levels.map((level) => (
              <tr key={`${level.kind}-${level.title}`} data-testid="chart-level" data-kind={level.kind}>
                <th scope="row" style={{ textAlign: "left", paddingRight: 12, fontWeight: 500, whiteSpace: "nowrap" }}>
                  <span
                    aria-hidden
                    style={{
                      display: "inline-block",
                      width: 10,
                      height: 2,
                      marginRight: 6,
                      verticalAlign: "middle",
                      background: levelColor(level.kind, palette),
                    }}
                  />
                  {level.title}
                </th>
                <td style={{ paddingRight: 12, fontVariantNumeric: "tabular-nums", whiteSpace: "nowrap" }}>
                  {level.price}
                </td>
                <td style={{ color: palette.text.secondary }}>{level.note}</td>
                {/* Only a mark that can be changed has the cell (an empty one would add to the row's text). */}
                {edit && level.edit ? (
                  <td style={{ paddingLeft: 12 }}>
                    <a
                      href={editHref(level.edit)}
                      className="pd-c-primary"
                      data-testid="chart-level-edit"
                      aria-label={`Edit ${level.title}`}
                    >
                      Edit
                    </a>
                  </td>
                ) : null}
              </tr>
            ))}
            {data.markers.map((m) => (
              <tr key={`${m.kind}-${m.time}-${m.price}`} data-testid="chart-fill" data-kind={m.kind}>
                <th scope="row" style={{ textAlign: "left", paddingRight: 12, fontWeight: 500, whiteSpace: "nowrap" }}>
                  {m.kind === "entry" ? "Entry fill" : "Exit fill"}
                </th>
                <td style={{ paddingRight: 12, fontVariantNumeric: "tabular-nums", whiteSpace: "nowrap" }}>
                  {m.price}
                </td>
                <td style={{ color: palette.text.secondary }}>
                  {m.side} {m.quantity} at {utcDateTime(m.time)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!drawn && hasCandles ? (
          <table
            data-testid="price-chart-fallback"
            style={{ borderCollapse: "collapse", fontSize: "0.8125rem", fontVariantNumeric: "tabular-nums" }}
          >
            <caption style={{ textAlign: "left", fontWeight: 500, paddingBottom: 4 }}>
              {failure ? "Latest candles" : "Latest candles (the chart needs JavaScript)"}
            </caption>
            <thead>
              <tr>
                {["UTC", "Open", "High", "Low", "Close"].map((h) => (
                  <th
                    key={h}
                    scope="col"
                    style={{ textAlign: h === "UTC" ? "left" : "right", paddingRight: 10, fontWeight: 500 }}
                  >
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {newest.map((c) => (
                <tr key={c.time}>
                  <td style={{ paddingRight: 10 }}>{utcMinute(c.time)}</td>
                  <td style={{ textAlign: "right", paddingRight: 10 }}>{c.open}</td>
                  <td style={{ textAlign: "right", paddingRight: 10 }}>{c.high}</td>
                  <td style={{ textAlign: "right", paddingRight: 10 }}>{c.low}</td>
                  <td style={{ textAlign: "right", paddingRight: 10 }}>{c.close}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </div>
    </section>
  );
}
