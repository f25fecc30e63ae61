// Trade History helpers: filters, summary counts, the P/L cell, and trade-history.csv.
import { describe, expect, test } from "vitest";
import { tradeMetrics } from "#app/services/trade-details.server.ts";
import {
  NO_FILTERS,
  TRADE_CSV_HEADER,
  type Trade,
  filterTrades,
  filtersFromParams,
  hasFilters,
  tradeCsvRows,
  tradeHistoryCsv,
  tradePnl,
  tradeStatusColor,
  tradeSummary,
} from "./trade-history.ts";

function trade(overrides: Partial<Trade>): Trade {
  return {
    id: "00000000-0000-0000-0000-000000000000",
    symbol: "ETH-PERP",
    side: "buy",
    orderType: "market",
    quantity: "0.01",
    price: null,
    executedPrice: null,
    executedQuantity: "0",
    fee: "0",
    status: "pending",
    source: "manual",
    orderId: null,
    clientOrderId: "job-1",
    exchange: "simulator",
    signalId: null,
    positionId: null,
    jobId: 1,
    leverage: 1,
    marginType: "cross",
    reduceOnly: false,
    errorMessage: null,
    realizedPnl: null,
    createdAt: "2026-01-02T03:04:05.000Z",
    executedAt: null,
    updatedAt: "2026-01-02T03:04:05.000Z",
    ...overrides,
  };
}

const TRADES = [
  trade({
    id: "a",
    symbol: "ETH-PERP",
    status: "executed",
    executedPrice: "3400.5",
    executedQuantity: "0.01",
    fee: "0.02",
  }),
  trade({ id: "b", symbol: "BTC-PERP", side: "sell", orderType: "limit", price: "95000", status: "pending" }),
  trade({ id: "c", symbol: "SOL-PERP", status: "failed", errorMessage: "Insufficient margin" }),
  trade({
    id: "d",
    symbol: "ETH-PERP",
    side: "sell",
    status: "completed",
    executedPrice: "3500",
    executedQuantity: "0.01",
    realizedPnl: "0.995",
    fee: "0.021",
    source: "signal",
  }),
  trade({ id: "e", symbol: "XRP-PERP", status: "cancelled" }),
];

describe("filters", () => {
  test("symbol: case-insensitive substring", () => {
    expect(filterTrades(TRADES, { symbol: "eth", status: "all" }).map((t) => t.id)).toEqual(["a", "d"]);
    expect(filterTrades(TRADES, { symbol: " btc ", status: "all" }).map((t) => t.id)).toEqual(["b"]);
    expect(filterTrades(TRADES, { symbol: "DOGE", status: "all" })).toEqual([]);
  });

  test("status: Executed covers executed and completed; Pending; Failed; All", () => {
    expect(filterTrades(TRADES, { symbol: "", status: "executed" }).map((t) => t.id)).toEqual(["a", "d"]);
    expect(filterTrades(TRADES, { symbol: "", status: "pending" }).map((t) => t.id)).toEqual(["b"]);
    expect(filterTrades(TRADES, { symbol: "", status: "failed" }).map((t) => t.id)).toEqual(["c"]);
    expect(filterTrades(TRADES, NO_FILTERS)).toHaveLength(5);
    expect(filterTrades(TRADES, { symbol: "eth", status: "pending" })).toEqual([]);
  });

  test("from the URL (no JavaScript): unknown statuses mean All", () => {
    expect(filtersFromParams(new URLSearchParams("symbol=ETH&status=failed"))).toEqual({
      symbol: "ETH",
      status: "failed",
    });
    expect(filtersFromParams(new URLSearchParams("status=bogus"))).toEqual(NO_FILTERS);
    expect(hasFilters(NO_FILTERS)).toBe(false);
    expect(hasFilters({ symbol: " ", status: "all" })).toBe(false);
    expect(hasFilters({ symbol: "", status: "failed" })).toBe(true);
  });
});

test("summary: total, completed (executed or completed), failed", () => {
  expect(tradeSummary(TRADES)).toEqual({ total: 5, completed: 2, failed: 1 });
  expect(tradeSummary([])).toEqual({ total: 0, completed: 0, failed: 0 });
});

test("a row's P/L: the realised P&L the ledger booked (already net of fees); none for entries", () => {
  expect(tradePnl(TRADES[3]!)).toBe("0.995");
  expect(tradePnl(TRADES[0]!)).toBeNull();
  expect(tradePnl(trade({ realizedPnl: "-1.5", fee: "0.1" }))).toBe("-1.5");
});

describe("trade-history.csv", () => {
  test("SPEC's columns first, then Fee, Realized P&L (net of fees), Trade ID, Order ID", () => {
    expect(TRADE_CSV_HEADER).toEqual([
      "Date",
      "Symbol",
      "Side",
      "Type",
      "Quantity",
      "Price",
      "Status",
      "Source",
      "Fee",
      "Realized P&L (net of fees)",
      "Trade ID",
      "Order ID",
    ]);
    expect(tradeCsvRows([...TRADES.slice(0, 4)])).toEqual([
      [
        "2026-01-02T03:04:05.000Z",
        "ETH-PERP",
        "buy",
        "market",
        "0.01",
        "3400.5",
        "executed",
        "manual",
        "0.02",
        "",
        "a",
        "",
      ],
      ["2026-01-02T03:04:05.000Z", "BTC-PERP", "sell", "limit", "0.01", "95000", "pending", "manual", "", "", "b", ""],
      ["2026-01-02T03:04:05.000Z", "SOL-PERP", "buy", "market", "0.01", "", "failed", "manual", "", "", "c", ""],
      [
        "2026-01-02T03:04:05.000Z",
        "ETH-PERP",
        "sell",
        "market",
        "0.01",
        "3500",
        "completed",
        "signal",
        "0.021",
        "0.995",
        "d",
        "",
      ],
    ]);
    // The CSV's realised P&L is the row's P/L on screen.
    expect(tradePnl(TRADES[3]!)).toBe("0.995");
  });

  test("the file: a header line, CRLF line ends, fields quoted when needed", () => {
    const csv = tradeHistoryCsv([TRADES[0]!, trade({ id: "q", symbol: 'ODD,"PERP"', source: "manual" })]);
    expect(csv.split("\r\n")).toEqual([
      "Date,Symbol,Side,Type,Quantity,Price,Status,Source,Fee,Realized P&L (net of fees),Trade ID,Order ID",
      "2026-01-02T03:04:05.000Z,ETH-PERP,buy,market,0.01,3400.5,executed,manual,0.02,,a,",
      '2026-01-02T03:04:05.000Z,"ODD,""PERP""",buy,market,0.01,,pending,manual,,,q,',
      "",
    ]);
    expect(tradeHistoryCsv([])).toBe(
      "Date,Symbol,Side,Type,Quantity,Price,Status,Source,Fee,Realized P&L (net of fees),Trade ID,Order ID\r\n",
    );
  });
});

describe("trade details metrics", () => {
  test("a fill: executed quantity × executed price, and the fee it paid", () => {
    expect(tradeMetrics(TRADES[0]!, null)).toEqual({
      totalValue: "34.005",
      estimatedFees: "0.02",
      executedQuantity: "0.01",
    });
  });

  test("a resting limit: quantity × limit price, fee estimated at the taker rate", () => {
    expect(tradeMetrics(TRADES[1]!, "94000")).toEqual({
      totalValue: "950",
      estimatedFees: "0.57",
      executedQuantity: "0",
    });
  });

  test("a market order still waiting: at the market price; a failed order: zero", () => {
    expect(tradeMetrics(trade({ quantity: "2" }), "10.5")).toEqual({
      totalValue: "21",
      estimatedFees: "0.0126",
      executedQuantity: "0",
    });
    expect(tradeMetrics(trade({}), null)).toEqual({ totalValue: "0", estimatedFees: "0", executedQuantity: "0" });
    expect(tradeMetrics(TRADES[2]!, "140")).toEqual({ totalValue: "0", estimatedFees: "0", executedQuantity: "0" });
  });
});

test("the status colours of docs/spec/screens.md#states, one rule for every status chip: executed and completed green, pending secondary, failed destructive, the rest outlined", () => {
  expect(
    ["executed", "completed", "pending", "failed", "cancelled", "rejected", "unknown"].map(tradeStatusColor),
  ).toEqual(["success", "success", "secondary", "error", undefined, undefined, undefined]);
});
