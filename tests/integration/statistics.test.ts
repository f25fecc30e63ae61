// GET /api/performance-stats and GET /api/closed-trades-pnl on both dialects, from executed
// trades written straight into the database in three periods. The arithmetic is in comments
// (the same rules as app/core/pnl; docs/decisions/004-performance-statistics.md).
import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { EMPTY_PERFORMANCE_STATS } from "#tests/setup/fixtures.ts";
import { bookMarketTrade } from "#tests/setup/scripted-trades.ts";
import type { TradeStatus } from "#db/queries/trades.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const EMPTY = EMPTY_PERFORMANCE_STATS;

describe.each(testDialects())("statistics endpoints on %s", (dialect) => {
  const app = freshApp(dialect);
  let cookie: string;
  const db = () => app.database.db;

  async function executed(
    id: string,
    symbol: string,
    side: "buy" | "sell",
    quantity: string,
    price: string,
    fee: string,
    executedAt: number | null,
    options: { leverage?: number; status?: TradeStatus } = {},
  ) {
    await bookMarketTrade(db(), { id, symbol, side, quantity, price, fee, executedAt, ...options });
  }

  beforeAll(async () => {
    cookie = (await registerVia(app, "stats_user")).cookie;
  });
  beforeEach(async () => {
    await db().deleteFrom("trades").execute();
  });

  test("401 JSON without a session", async () => {
    for (const path of ["/api/performance-stats", "/api/closed-trades-pnl"]) {
      const response = await app.fetch(path);
      expect(response.status, path).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/application\/json/);
      expect(await response.json()).toEqual({ error: "Authentication required" });
    }
  });

  test("no executed trades: zero P&L and three empty periods", async () => {
    await executed("pending-1", "BTC-PERP", "buy", "1", "100", "0.1", null, { status: "pending" });
    const pnl = await app.fetch("/api/closed-trades-pnl", { cookie });
    expect(pnl.status).toBe(200);
    expect(await pnl.json()).toEqual({ totalPnL: "0", realizedMatches: 0, closingTrades: 0 });
    const stats = await app.fetch("/api/performance-stats", { cookie });
    expect(stats.status).toBe(200);
    expect(await stats.json()).toEqual({ allTime: EMPTY, month: EMPTY, week: EMPTY });
  });

  test("FIFO matches across symbols and periods, fees included", async () => {
    const base = Date.now();
    // BTC: long 2 @ 100 (fee 0.2, leverage 5), 60 days ago
    await executed("t1", "BTC-PERP", "buy", "2", "100", "0.2", base - 60 * DAY, { leverage: 5 });
    // A: sell 1 @ 110 (fee 0.11) an hour later closes 1 of t1:
    //    gross 10, fees 0.2 × 1/2 + 0.11 = 0.21, net 9.79; volume 100, margin 20, 1h; exit 60 days ago → all time only
    await executed("t2", "BTC-PERP", "sell", "1", "110", "0.11", base - 60 * DAY + HOUR);
    // B: sell 3 @ 90 (fee 0.27, leverage 2) 20 days ago closes t1's last 1 and opens a short of 2:
    //    gross (90 − 100) × 1 = −10, fees 0.1 (t1's rest) + 0.27 × 1/3 = 0.19, net −10.19; volume 100, margin 20, 40 days
    //    the short 2 @ 90 carries 0.27 − 0.09 = 0.18 of fee
    await executed("t3", "BTC-PERP", "sell", "3", "90", "0.27", base - 20 * DAY, { leverage: 2 });
    // ETH: short 5 @ 20 (fee 0.05, no leverage → 1), 10 days ago
    await executed("t4", "ETH-PERP", "sell", "5", "20", "0.05", base - 10 * DAY);
    // C: buy 1 BTC @ 80 (fee 0.08) 2 days ago closes 1 of the short:
    //    gross (90 − 80) × 1 = 10, fees 0.18 × 1/2 + 0.08 = 0.17, net 9.83; volume 90, margin 45, 18 days
    await executed("t5", "BTC-PERP", "buy", "1", "80", "0.08", base - 2 * DAY);
    // D: buy 5 ETH @ 21 (fee 0.0525) 1 day ago closes t4:
    //    gross (20 − 21) × 5 = −5, fees 0.05 + 0.0525 = 0.1025, net −5.1025; volume 100, margin 100, 9 days
    await executed("t6", "ETH-PERP", "buy", "5", "21", "0.0525", base - DAY, { status: "completed" });
    // Not counted: pending, failed, and executed without a time.
    await executed("x1", "BTC-PERP", "sell", "7", "1000", "0", null, { status: "pending" });
    await executed("x2", "BTC-PERP", "sell", "7", "1000", "0", base - DAY, { status: "failed" });
    await executed("x3", "ETH-PERP", "sell", "7", "1000", "0", null);

    const pnl = await app.fetch("/api/closed-trades-pnl", { cookie });
    expect(pnl.status).toBe(200);
    // 9.79 − 10.19 + 9.83 − 5.1025 = 4.3275 over A, B, C, D
    expect(await pnl.json()).toEqual({ totalPnL: "4.3275", realizedMatches: 4, closingTrades: 4 });

    const response = await app.fetch("/api/performance-stats", { cookie });
    expect(response.status).toBe(200);
    // pnl%: A 9.79, B −10.19, C 9.83 / 90 × 100 = 10.9222…, D −5.1025
    expect(await response.json()).toEqual({
      allTime: {
        avgPnlPercent: "1.35", // (9.79 − 10.19 + 10.9222… − 5.1025) / 4 = 5.419722… / 4 = 1.354930…
        totalPnl: "4.33", // 4.3275
        pnlPercent: "1.11", // 4.3275 / 390 × 100 = 1.109615…
        roi: "2.34", // 4.3275 / (20 + 20 + 45 + 100) × 100 = 2.339189…
        maxLossPercent: "-10.19",
        maxGainPercent: "10.92",
        totalVolume: "390.00", // 100 + 100 + 90 + 100
        minTradeVolume: "90.00",
        avgTradeVolume: "97.50",
        maxTradeVolume: "100.00",
        totalTrades: 4,
        avgTimeInTrade: "16d. 18h. 15min. 0sec.", // (1h + 40d + 18d + 9d) / 4 = 1609h / 4 = 402.25h
        profitFactor: "1.28", // (9.79 + 9.83) / (10.19 + 5.1025) = 19.62 / 15.2925 = 1.28298…
        profitVolumePercent: "48.72", // (100 + 90) / 390 × 100 = 48.717…
        percentProfitable: "50.00",
      },
      month: {
        avgPnlPercent: "-1.46", // (−10.19 + 10.9222… − 5.1025) / 3 = −4.370277… / 3 = −1.456759…
        totalPnl: "-5.46", // −10.19 + 9.83 − 5.1025 = −5.4625
        pnlPercent: "-1.88", // −5.4625 / 290 × 100 = −1.883620…
        roi: "-3.31", // −5.4625 / (20 + 45 + 100) × 100 = −3.310606…
        maxLossPercent: "-10.19",
        maxGainPercent: "10.92",
        totalVolume: "290.00",
        minTradeVolume: "90.00",
        avgTradeVolume: "96.67", // 290 / 3
        maxTradeVolume: "100.00",
        totalTrades: 3,
        avgTimeInTrade: "22d. 8h. 0min. 0sec.", // (40d + 18d + 9d) / 3 = 22⅓ d
        profitFactor: "0.64", // 9.83 / 15.2925 = 0.642799…
        profitVolumePercent: "31.03", // 90 / 290 × 100 = 31.034…
        percentProfitable: "33.33",
      },
      week: {
        avgPnlPercent: "2.91", // (10.9222… − 5.1025) / 2 = 2.909861…
        totalPnl: "4.73", // 9.83 − 5.1025 = 4.7275
        pnlPercent: "2.49", // 4.7275 / 190 × 100 = 2.488157…
        roi: "3.26", // 4.7275 / (45 + 100) × 100 = 3.260344…
        maxLossPercent: "-5.10", // −5.1025
        maxGainPercent: "10.92",
        totalVolume: "190.00",
        minTradeVolume: "90.00",
        avgTradeVolume: "95.00",
        maxTradeVolume: "100.00",
        totalTrades: 2,
        avgTimeInTrade: "13d. 12h. 0min. 0sec.", // (18d + 9d) / 2
        profitFactor: "1.93", // 9.83 / 5.1025 = 1.926506…
        profitVolumePercent: "47.37", // 90 / 190 × 100 = 47.368…
        percentProfitable: "50.00",
      },
    });
  });
});
