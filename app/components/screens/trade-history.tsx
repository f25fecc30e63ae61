// The Trade History screen (SPEC.md §2 Trade History, §7, §8, §9), shared by /history,
// /trade-history, /trades and /signals: summary cards (Total Trades, Completed, Failed,
// P&L with the closed-position count), symbol and status filters with Clear Filters, the
// Export button (trade-history.csv of the filtered rows) and the expandable table.
// The trades are server-rendered from the loader, then polled (GET /api/trades?limit=50,
// every 30 s; live trade updates refresh them sooner); the P&L card loads
// GET /api/closed-trades-pnl in the browser (every 30 s). Without JavaScript the filters
// are a GET form the loader applies.
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import { Link as RemixLink, useLocation, useNavigate } from "@remix-run/react";
import { type ReactNode, useId, useState } from "react";
import { D } from "#app/core/decimal.ts";
import type { Signal } from "#db/queries/signals.ts";
import { errorText } from "#app/utils/api-client.ts";
import { downloadText, formatPnl } from "#app/utils/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { theme } from "#app/mui/theme.ts";
import { useToast } from "../toaster.tsx";
import { TradeHistoryTable } from "../trade-history/trade-history-table.tsx";
import {
  NO_FILTERS,
  PNL_POLL_MS,
  SIGNALS_POLL_MS,
  STATUS_FILTERS,
  type StatusFilter,
  TRADES_POLL_MS,
  TRADE_HISTORY_FILE,
  TRADE_HISTORY_LIMIT,
  type Trade,
  type TradeFilters,
  filterTrades,
  hasFilters,
  signalsUrl,
  tradeHistoryCsv,
  tradeSummary,
  tradesUrl,
} from "../trade-history/trade-history-utils.ts";
import { LeanIcon, T, cls, rule } from "../ui/lean.tsx";
import { leanRawCss, leanSheet } from "../ui/lean-sheet.ts";
import type { CardStatus } from "../ui/stat-card.tsx";

// The screen's frame (../screen.tsx), its stat cards (../ui/stat-card.tsx), the outlined
// Paper, the filter form's box and the captions as plain elements with lean classes
// (components/ui/lean-sheet.ts) instead of an MUI styled component, and an emotion
// serialization, each on every server render (docs/benchmarks.md, "Pages (T5)"). The form
// controls, buttons and the error Alert (with its Retry) stay MUI.
const S = leanSheet("th", {
  /** Screen: Stack direction row, spacing 2 (flex gap), centred, wrapping, mb 3. */
  head: { display: "flex", flexDirection: "row", alignItems: "center", flexWrap: "wrap", gap: 2, mb: 3 },
  grow: { flex: 1 },
  cards: { display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr", lg: "repeat(4, 1fr)" }, mb: 2 },
  /** Paper (and Card) variant outlined. */
  paper: { bgcolor: "background.paper", color: "text.primary", backgroundImage: "none", transition: theme.transitions.create("box-shadow"), borderRadius: 1, border: `1px solid ${theme.palette.divider}` },
  card: { overflow: "hidden", height: "100%" },
  /** CardContent. */
  cardContent: { p: 2, "&:last-child": { pb: 3 } },
  cardTop: { display: "flex", alignItems: "center", justifyContent: "space-between", mb: 1 },
  cardIcon: { display: "flex" },
  pad: { p: 2 },
  filters: { display: "flex", gap: 1.5, alignItems: "center", flexWrap: "wrap", mb: 2 },
  footer: { display: "flex", flexDirection: "row", mt: 1.5 },
  success: { color: "success.main" },
  warning: { color: "warning.main" },
  error: { color: "error.main" },
  neutral: { color: "text.secondary" },
});

// The filter fields (MUI's outlined TextField, size small, label shrunk, and its native
// select) and the buttons as they render before hydration (Export disabled, Apply, the Clear
// Filters link), copied from what MUI 9 emits with the app's theme: an MUI TextField is six
// styled components (and its global autofill keyframes), most of the page's render after the
// rows went lean. The fields stay plain after hydration too (controlled, the same DOM, focus
// and hover shown by CSS); the buttons become MUI's (ripple) once hydrated.
const pal = theme.palette;
const font = theme.typography.fontFamily;
const outlineBorder = pal.mode === "light" ? "rgba(0, 0, 0, 0.23)" : "rgba(255, 255, 255, 0.23)";
const easeOut = (prop: string, ms: number, delay = 0) => `${prop} ${ms}ms cubic-bezier(0.0, 0, 0.2, 1) ${delay}ms`;
const inputBox = { font: "inherit", letterSpacing: "inherit", color: "currentColor", border: 0, boxSizing: "content-box", background: "none", height: "1.4375em", margin: 0, WebkitTapHighlightColor: "transparent", display: "block", minWidth: 0, width: "100%", padding: "8.5px 14px" };
const placeholder = { color: "currentColor", opacity: 0.5, transition: "opacity 200ms cubic-bezier(0.4, 0, 0.2, 1) 0ms" };
const autofill = { WebkitBoxShadow: `0 0 0 100px ${pal.mode === "light" ? "#d3e0f0" : "#266798"} inset`, WebkitTextFillColor: pal.text.primary, caretColor: pal.text.primary, borderRadius: "inherit" };
const btnBase = {
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  position: "relative",
  boxSizing: "border-box",
  WebkitTapHighlightColor: "transparent",
  backgroundColor: "transparent",
  outline: 0,
  border: 0,
  margin: 0,
  borderRadius: `${theme.shape.borderRadius}px`,
  padding: "6px 16px",
  cursor: "pointer",
  userSelect: "none",
  verticalAlign: "middle",
  MozAppearance: "none",
  WebkitAppearance: "none",
  textDecoration: "none",
  color: "inherit",
  fontFamily: font,
  fontWeight: theme.typography.fontWeightMedium,
  fontSize: theme.typography.pxToRem(14),
  lineHeight: 1.75,
  textTransform: "none",
  minWidth: "64px",
  transition: theme.transitions.create(["background-color", "box-shadow", "border-color", "color"], { duration: theme.transitions.duration.short }),
  boxShadow: "none",
  printColorAdjust: "exact",
};
const hoverBg = theme.alpha(pal.primary.main, pal.action.hoverOpacity);
leanRawCss(
  "th-controls",
  [
    rule(".pd-thf-fc", { display: "inline-flex", flexDirection: "column", position: "relative", minWidth: 0, padding: 0, margin: 0, border: 0, verticalAlign: "top" }),
    rule(".pd-thf-fc.pd-thf-w200", { minWidth: "200px" }),
    rule(".pd-thf-fc.pd-thf-w160", { minWidth: "160px" }),
    rule(".pd-thf-label", {
      color: pal.text.secondary,
      fontFamily: font,
      fontWeight: 400,
      fontSize: "1rem",
      lineHeight: "1.4375em",
      padding: 0,
      display: "block",
      transformOrigin: "top left",
      whiteSpace: "nowrap",
      overflow: "hidden",
      textOverflow: "ellipsis",
      position: "absolute",
      left: 0,
      top: 0,
      transition: [easeOut("color", 200), easeOut("transform", 200), easeOut("max-width", 200)].join(","),
      zIndex: 1,
      userSelect: "none",
      pointerEvents: "auto",
      maxWidth: "calc(133% - 32px)",
      transform: "translate(14px, -9px) scale(0.75)",
    }),
    rule(".pd-thf-fc:focus-within>.pd-thf-label", { color: pal.primary.main }),
    rule(".pd-thf-root", { fontFamily: font, fontWeight: 400, fontSize: "1rem", lineHeight: "1.4375em", color: pal.text.primary, boxSizing: "border-box", position: "relative", cursor: "text", display: "inline-flex", alignItems: "center", borderRadius: `${theme.shape.borderRadius}px` }),
    rule(".pd-thf-root:hover .pd-thf-outline", { borderColor: pal.text.primary }),
    `@media (hover: none){${rule(".pd-thf-root:hover .pd-thf-outline", { borderColor: outlineBorder })}}`,
    rule(".pd-thf-root:focus-within .pd-thf-outline", { borderWidth: "2px", borderColor: pal.primary.main }),
    rule(".pd-thf-input", inputBox),
    rule(".pd-thf-input::placeholder", placeholder),
    rule(".pd-thf-input:focus", { outline: 0 }),
    rule(".pd-thf-input:invalid", { boxShadow: "none" }),
    rule(".pd-thf-input::-webkit-search-decoration", { WebkitAppearance: "none" }),
    rule(".pd-thf-input:-webkit-autofill", autofill),
    rule(".pd-thf-select", { MozAppearance: "none", WebkitAppearance: "none", userSelect: "none", cursor: "pointer", borderRadius: `${theme.shape.borderRadius}px`, ...inputBox, paddingRight: "32px" }),
    rule(".pd-thf-select:focus", { outline: 0 }),
    rule(".pd-thf-select:invalid", { boxShadow: "none" }),
    rule(".pd-thf-select:not([multiple]) option,.pd-thf-select:not([multiple]) optgroup", { backgroundColor: pal.background.paper }),
    rule(".pd-thf-select:-webkit-autofill", autofill),
    rule(".pd-thf-caret", { userSelect: "none", width: "1em", height: "1em", display: "inline-block", flexShrink: 0, transition: theme.transitions.create("fill", { duration: theme.transitions.duration.shorter }), fill: "currentColor", fontSize: "1.5rem", position: "absolute", top: "calc(50% - .5em)", pointerEvents: "none", color: pal.action.active, right: "7px" }),
    rule(".pd-thf-outline", { textAlign: "left", position: "absolute", bottom: 0, right: 0, top: "-5px", left: 0, margin: 0, padding: "0 8px", pointerEvents: "none", borderRadius: "inherit", borderStyle: "solid", borderWidth: "1px", overflow: "hidden", minWidth: "0%", borderColor: outlineBorder }),
    rule(".pd-thf-legend", { float: "unset", width: "auto", overflow: "hidden", display: "block", padding: 0, height: "11px", fontSize: "0.75em", visibility: "hidden", whiteSpace: "nowrap", maxWidth: "100%", transition: easeOut("max-width", 100, 50) }),
    rule(".pd-thf-legend>span", { paddingLeft: "5px", paddingRight: "5px", display: "inline-block", opacity: 0, visibility: "visible" }),
    // Button (disableElevation, the theme's textTransform none).
    rule(".pd-thb", btnBase),
    rule(".pd-thb::-moz-focus-inner", { borderStyle: "none" }),
    rule(".pd-thb:hover", { textDecoration: "none" }),
    rule(".pd-thb.pd-thb-contained", { color: pal.primary.contrastText, backgroundColor: pal.primary.main }),
    `@media (hover: hover){${rule(".pd-thb.pd-thb-contained:hover", { backgroundColor: pal.primary.dark })}}`,
    rule(".pd-thb.pd-thb-text", { padding: "6px 8px", color: pal.primary.main }),
    `@media (hover: hover){${rule(".pd-thb.pd-thb-text:hover", { backgroundColor: hoverBg })}}`,
    rule(".pd-thb.pd-thb-outlined", { padding: "5px 15px", border: `1px solid ${theme.alpha(pal.primary.main, 0.5)}`, color: pal.primary.main }),
    rule(".pd-thb.pd-thb-disabled", { pointerEvents: "none", cursor: "default", color: pal.action.disabled }),
    rule(".pd-thb.pd-thb-outlined.pd-thb-disabled", { border: `1px solid ${pal.action.disabledBackground}` }),
    rule(".pd-thb-start", { display: "inherit", alignItems: "center", marginRight: "8px", marginLeft: "-4px" }),
    rule(".pd-thb-start::before", { content: '"\\200b"', width: 0, overflow: "hidden" }),
    rule(".pd-thb-start>*:nth-of-type(1)", { fontSize: "20px" }),
  ].join(""),
);

/** MUI's outlined TextField (size small, label shrunk) as plain elements: the same DOM, ids and label. */
function OutlinedField({ label, width, children }: { label: string; width: 160 | 200; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className={cls("pd-thf-fc", width === 200 ? "pd-thf-w200" : "pd-thf-w160")}>
      <label className="pd-thf-label" data-shrink="true" htmlFor={id} id={`${id}-label`}>
        {label}
      </label>
      <div className="pd-thf-root">
        {children(id)}
        <fieldset aria-hidden="true" className="pd-thf-outline">
          <legend className="pd-thf-legend">
            <span>{label}</span>
          </legend>
        </fieldset>
      </div>
    </div>
  );
}

const ICONS = {
  receipt: ["M19.5 3.5 18 2l-1.5 1.5L15 2l-1.5 1.5L12 2l-1.5 1.5L9 2 7.5 3.5 6 2v14H3v3c0 1.66 1.34 3 3 3h12c1.66 0 3-1.34 3-3V2zM19 19c0 .55-.45 1-1 1s-1-.45-1-1v-3H8V5h11z", "M9 7h6v2H9zm7 0h2v2h-2zm-7 3h6v2H9zm7 0h2v2h-2z"],
  check: ["M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2m-2 15-5-5 1.41-1.41L10 14.17l7.59-7.59L19 8z"],
  cancel: ["M12 2C6.47 2 2 6.47 2 12s4.47 10 10 10 10-4.47 10-10S17.53 2 12 2m5 13.59L15.59 17 12 13.41 8.41 17 7 15.59 10.59 12 7 8.41 8.41 7 12 10.59 15.59 7 17 8.41 13.41 12z"],
  wallet: [
    "M21 18v1c0 1.1-.9 2-2 2H5c-1.11 0-2-.9-2-2V5c0-1.1.89-2 2-2h14c1.1 0 2 .9 2 2v1h-9c-1.11 0-2 .9-2 2v8c0 1.1.89 2 2 2zm-9-2h10V8H12zm4-2.5c-.83 0-1.5-.67-1.5-1.5s.67-1.5 1.5-1.5 1.5.67 1.5 1.5-.67 1.5-1.5 1.5",
  ],
} as const;
const DOWNLOAD = "M5 20h14v-2H5zM19 9h-4V3H9v6H5l7 7z";

/** An MUI icon (SvgIcon, fontSize medium) from its paths. */
function CardIcon({ paths }: { paths: readonly string[] }) {
  return (
    <svg className="pd-icon pd-icon-md" focusable="false" aria-hidden="true" viewBox="0 0 24 24">
      {paths.map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}

/** ../ui/stat-card.tsx's StatCard as plain elements: the same title, value, icon, description and status. */
function StatCard({ title, value, icon, description, status = "neutral", testId }: { title: string; value: ReactNode; icon: ReactNode; description?: ReactNode; status?: CardStatus; testId?: string }) {
  return (
    <div className={cls(S.paper, S.card)} data-testid={testId} data-status={status}>
      <div className={S.cardContent}>
        <div className={S.cardTop}>
          <h6 className={cls(T.subtitle2, T.muted)}>{title}</h6>
          <div className={cls(S[status], S.cardIcon)}>{icon}</div>
        </div>
        <p className={cls(T.h2, S[status], T.num)}>{value}</p>
        {description ? <span className={cls(T.caption, T.muted)}>{description}</span> : null}
      </div>
    </div>
  );
}

export interface ClosedTradesPnl {
  totalPnL: string;
  realizedMatches: number;
}

export interface TradeHistoryData {
  trades: Trade[];
  filters: TradeFilters;
}

export function TradeHistoryScreen({ data }: { data: TradeHistoryData }) {
  const toast = useToast();
  const hydrated = useHydrated();
  const trades = useApiQuery<Trade[]>(tradesUrl, { initialData: data.trades, refetchIntervalMs: TRADES_POLL_MS });
  // SPEC.md §7: the screen also fetches the latest 50 signals (it shows none of them).
  useApiQuery<Signal[]>(signalsUrl, { refetchIntervalMs: SIGNALS_POLL_MS });
  const pnl = useApiQuery<ClosedTradesPnl>("/api/closed-trades-pnl", { refetchIntervalMs: PNL_POLL_MS });
  const [filters, setFilters] = useState<TradeFilters>(data.filters);
  const location = useLocation();
  const navigate = useNavigate();

  const all = trades.data ?? [];
  const shown = filterTrades(all, filters);
  const summary = tradeSummary(all);
  const totalPnL = pnl.data?.totalPnL ?? null;
  const matches = pnl.data?.realizedMatches ?? 0;
  const pnlStatus = totalPnL === null ? "neutral" : D(totalPnL).gt(0) ? "success" : D(totalPnL).lt(0) ? "error" : "neutral";
  const pnlDescription = pnl.data
    ? `${matches} closed ${matches === 1 ? "position" : "positions"}`
    : pnl.error
      ? `Unavailable: ${errorText(pnl.error, "Unknown error")}`
      : hydrated
        ? "Loading closed positions..."
        : "Closed positions: needs JavaScript";

  const exportCsv = () => {
    if (shown.length === 0) {
      toast({ title: "No trades to export", description: "Apply different filters or wait for trades to be placed" });
      return;
    }
    downloadText(TRADE_HISTORY_FILE, tradeHistoryCsv(shown));
    toast({ title: "Export successful", description: `Exported ${shown.length} ${shown.length === 1 ? "trade" : "trades"} as CSV file` });
  };

  const clearFilters = () => {
    setFilters(NO_FILTERS);
    // Filters that came in the URL (a no-JavaScript post of the filter form) go too.
    if (location.search) navigate(location.pathname, { replace: true, preventScrollReset: true });
  };

  return (
    <div>
      <div className={S.head}>
        <h1 className={T.h1}>Trade History</h1>
        <div className={S.grow} />
        {hydrated ? (
          <Button variant="outlined" startIcon={<LeanIcon d={DOWNLOAD} />} onClick={exportCsv} data-testid="trade-history-export">
            Export
          </Button>
        ) : (
          // Before hydration MUI's Button is disabled (nothing to export without JavaScript): the same, plain.
          <button className="pd-thb pd-thb-outlined pd-thb-disabled" tabIndex={-1} type="button" disabled data-testid="trade-history-export">
            <span className="pd-thb-start">
              <LeanIcon d={DOWNLOAD} />
            </span>
            Export
          </button>
        )}
      </div>
      <div className={S.cards}>
        <StatCard
          testId="card-total-trades"
          title="Total Trades"
          value={String(summary.total)}
          icon={<CardIcon paths={ICONS.receipt} />}
          description={summary.total >= TRADE_HISTORY_LIMIT ? `The latest ${TRADE_HISTORY_LIMIT} orders` : "All orders"}
        />
        <StatCard testId="card-completed" title="Completed" value={String(summary.completed)} icon={<CardIcon paths={ICONS.check} />} status={summary.completed > 0 ? "success" : "neutral"} description="Executed or completed" />
        <StatCard testId="card-failed" title="Failed" value={String(summary.failed)} icon={<CardIcon paths={ICONS.cancel} />} status={summary.failed > 0 ? "error" : "neutral"} description="Rejected or not filled" />
        <StatCard
          testId="card-trade-pnl"
          title="P&L"
          value={totalPnL === null ? "—" : formatPnl(totalPnL)}
          icon={<CardIcon paths={ICONS.wallet} />}
          status={pnlStatus}
          description={pnlDescription}
        />
      </div>

      <div className={cls(S.paper, S.pad)} data-testid="trade-history">
        <form
          method="get"
          action={location.pathname}
          onSubmit={(event) => {
            // With JavaScript the filters apply as they are typed.
            if (hydrated) event.preventDefault();
          }}
          className={S.filters}
          data-testid="trade-filters"
        >
          <OutlinedField label="Symbol" width={200}>
            {(id) => (
              <input
                aria-invalid="false"
                id={id}
                name="symbol"
                placeholder="e.g. BTC"
                type="text"
                maxLength={40}
                className="pd-thf-input"
                value={filters.symbol}
                onChange={(e) => setFilters((f) => ({ ...f, symbol: e.target.value }))}
              />
            )}
          </OutlinedField>
          <OutlinedField label="Status" width={160}>
            {(id) => (
              <>
                <select className="pd-thf-select" aria-invalid="false" id={id} name="status" value={filters.status} onChange={(e) => setFilters((f) => ({ ...f, status: e.target.value as StatusFilter }))}>
                  {STATUS_FILTERS.map((s) => (
                    <option key={s.value} value={s.value}>
                      {s.label}
                    </option>
                  ))}
                </select>
                <svg className="pd-thf-caret" focusable="false" aria-hidden="true" viewBox="0 0 24 24">
                  <path d="M7 10l5 5 5-5z" />
                </svg>
              </>
            )}
          </OutlinedField>
          {!hydrated ? (
            // Only before hydration (the no-JavaScript form's submit), so never an MUI Button.
            <button className="pd-thb pd-thb-contained" tabIndex={0} type="submit">
              Apply
            </button>
          ) : null}
          {hydrated ? (
            <Button
              component={RemixLink}
              to={location.pathname}
              variant="text"
              disabled={!hasFilters(filters) && !location.search}
              onClick={(event: React.MouseEvent) => {
                event.preventDefault();
                clearFilters();
              }}
              data-testid="trade-clear-filters"
            >
              Clear Filters
            </Button>
          ) : (
            <RemixLink className="pd-thb pd-thb-text" tabIndex={0} to={location.pathname} data-testid="trade-clear-filters">
              Clear Filters
            </RemixLink>
          )}
          <div className={S.grow} />
          <p className={cls(T.body2, T.muted)} data-testid="trade-count">
            {hasFilters(filters) ? `${shown.length} of ${all.length} trades` : `${all.length} ${all.length === 1 ? "trade" : "trades"}`}
          </p>
        </form>

        {trades.error ? (
          <Alert
            severity="error"
            sx={{ mb: 2 }}
            action={
              <Button color="inherit" size="small" onClick={() => void trades.refetch()}>
                Retry
              </Button>
            }
          >
            {`Failed to load trades: ${errorText(trades.error, "Unknown error")}`}
          </Alert>
        ) : null}

        <TradeHistoryTable trades={shown} />
        {all.length > 0 ? (
          <div className={S.footer}>
            <span className={cls(T.caption, T.muted)}>Click a row for its details. Newest first; the latest {TRADE_HISTORY_LIMIT} orders.</span>
          </div>
        ) : null}
      </div>
    </div>
  );
}
