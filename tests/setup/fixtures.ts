// Test data that more than one test file asserts against (a unit test and the integration
// test of the same rule): one copy, so the two cannot drift apart.
import type { ProductSpec } from "#app/core/products.ts";
import { DEFAULT_TRADING_CONFIG, type TradingConfig } from "#app/core/schemas/trading-config.ts";

/** The performance statistics of no closed trade (app/core/pnl, GET /api/performance-stats). */
export const EMPTY_PERFORMANCE_STATS = {
  avgPnlPercent: "0.00",
  totalPnl: "0.00",
  pnlPercent: "0.00",
  roi: "0.00",
  maxLossPercent: "0.00",
  maxGainPercent: "0.00",
  totalVolume: "0.00",
  minTradeVolume: "0.00",
  avgTradeVolume: "0.00",
  maxTradeVolume: "0.00",
  totalTrades: 0,
  avgTimeInTrade: "0d. 0h. 0min. 0sec.",
  profitFactor: null,
  profitVolumePercent: "0.00",
  percentProfitable: "0.00",
};

/** Trading Rules percent inputs as the form posts them (TP3's portfolio left at its default 50 %)… */
export const PERCENT_INPUTS: Record<string, string> = {
  "takeProfits[0].portfolio": "25",
  "takeProfits[0].priceDeviation": "0.6",
  "takeProfits[1].portfolio": "25",
  "takeProfits[1].priceDeviation": "1.2",
  "takeProfits[2].priceDeviation": "2",
  stopLossOffset: "0.8",
  "trailingStop.activation": "2",
  "trailingStop.execute": "0.7",
};
/** …and the fractions they are stored as. */
export const PERCENT_INPUTS_STORED = {
  takeProfits: [
    { portfolio: 0.25, priceDeviation: 0.006, enabled: true },
    { portfolio: 0.25, priceDeviation: 0.012, enabled: true },
    { portfolio: 0.5, priceDeviation: 0.02, enabled: true },
  ],
  stopLossOffset: 0.008,
  trailingStop: { activation: 0.02, execute: 0.007 },
};

/** The whole-contract tests' ladder (decision 025): TP 30 / 30 / 40 % at +1 / +2 / +3 %. */
export const CONTRACT_TEST_TAKE_PROFITS = [
  { portfolio: 0.3, priceDeviation: 0.01, enabled: true },
  { portfolio: 0.3, priceDeviation: 0.02, enabled: true },
  { portfolio: 0.4, priceDeviation: 0.03, enabled: true },
];

/**
 * The whole-contract integration tests' rules: that ladder, the stop 5 % from the entry, no
 * trailing stop (break-even as by default; a test that needs it off says so).
 */
export const CONTRACT_TEST_CONFIG: TradingConfig = {
  ...DEFAULT_TRADING_CONFIG,
  takeProfits: CONTRACT_TEST_TAKE_PROFITS,
  stopLossOffset: 0.05,
  trailingStopEnabled: false,
  applyTrailingStopToSignals: false,
};

/**
 * DOGE-PERP as the catalog makes it of Coinbase's DOP-20DEC30-CDE perpetual (1000 DOGE a
 * contract, docs/decisions/051-every-coinbase-perpetual.md): what the parser answers and what
 * the product rules are tested with.
 */
export const DOGE_PRODUCT: ProductSpec = {
  symbol: "DOGE-PERP",
  base: "DOGE",
  quote: "USD",
  baseIncrement: "1000",
  baseMinSize: "1000",
  quoteIncrement: "0.00001",
  minMarketFunds: "10",
  referencePrice: "0.38",
  volatility: "0.0014",
  coinbaseContractSize: "1000",
  coinbaseProductId: "DOP-20DEC30-CDE",
};

/**
 * The columns of Trade History's table (docs/spec/screens.md); the Positions screen's table has
 * the same, with "Entry / Current" for "Entry" (positionColumns).
 */
export const TRADE_TABLE_COLUMNS = [
  "Position",
  "Entry",
  "Max Drawdown",
  "TP",
  "SL",
  "BE",
  "Trailing",
  "Portfolio",
  "P/L",
  "ROI",
  "Status",
  "Actions",
];

/** The Positions screen's table columns: Trade History's, the entry beside the current price. */
export const positionColumns = () => TRADE_TABLE_COLUMNS.map((c) => (c === "Entry" ? "Entry / Current" : c));

/** The TradingView placeholders the ready-to-paste alert message carries (docs/spec/webhook.md). */
export const ALERT_PLACEHOLDERS = [
  "{{strategy.order.action}}",
  "{{ticker}}",
  "{{strategy.order.contracts}}",
  "{{close}}",
  "{{timenow}}",
];

/** A filled signal's latency timeline, hop by hop (issue 12, table signal_timeline). */
export const TIMELINE_HOPS = ["fired", "received", "committed", "claimed", "sent", "acked", "filled"];
