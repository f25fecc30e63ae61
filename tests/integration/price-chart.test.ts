// The price chart's data over HTTP on both dialects (decision 032): GET /api/candles (login,
// Zod validation with the field named, the bound on the count), the position details API's
// chart (candles over the position's life, its rule levels), and the server-rendered chart
// page /positions/{id}/chart, whose no-JavaScript body lists the levels and latest candles.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, test } from "vitest";
import type { AdvancedControls } from "#app/core/orders/controls.ts";
import type { PriceChartData } from "#app/core/schemas/candles.ts";
import { recordCandleTicks } from "#db/queries/candles.ts";
import { insertPosition } from "#db/queries/positions.ts";
import { freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

const MINUTE = 60_000;

describe.each(testDialects())("price chart data on %s", (dialect) => {
  const app = freshApp(dialect);
  let user: string;
  const db = () => app.database.db;
  const now = Date.now();
  const start = Math.floor(now / MINUTE) * MINUTE - 30 * MINUTE;

  beforeAll(async () => {
    user = (await registerVia(app, "chart_admin")).cookie;
    // 30 minutes of ETH: prices around 3000, the last candle's close 3029.
    await recordCandleTicks(
      db(),
      Array.from({ length: 30 }, (_, i) => [
        { symbol: "ETH-PERP", price: String(3000 + i), at: start + i * MINUTE + 1000 },
        { symbol: "ETH-PERP", price: String(3000 + i + 0.5), at: start + i * MINUTE + 2000 },
        { symbol: "ETH-PERP", price: String(3000 + i - 0.5), at: start + i * MINUTE + 3000 },
      ]).flat(),
    );
  });

  const get = async (path: string, cookie: string | null = user) => {
    const response = await app.fetch(path, cookie ? { cookie } : {});
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  test("GET /api/candles: 401 without a login", async () => {
    const { status } = await get(`/api/candles?symbol=ETH-PERP&from=${start}`, null);
    expect(status).toBe(401);
  });

  test("GET /api/candles: each bad query is a 400 naming its field", async () => {
    const cases: [string, string, string][] = [
      [`from=${start}`, "symbol", "symbol must be one of"],
      [`symbol=DOGE-PERP&from=${start}`, "symbol", "symbol must be one of"],
      ["symbol=ETH-PERP&from=yesterday", "from", "from must be a time in epoch milliseconds"],
      [`symbol=ETH-PERP&from=${start}&to=${start - 1}`, "to", "to must not be before from"],
      [`symbol=ETH-PERP&from=${start}&limit=1501`, "limit", "limit must be between 1 and 1500"],
      [`symbol=ETH-PERP&from=${start}&limit=0`, "limit", "limit must be between 1 and 1500"],
    ];
    for (const [query, field, message] of cases) {
      const { status, body } = await get(`/api/candles?${query}`);
      expect(status, query).toBe(400);
      expect(body.field, query).toBe(field);
      expect(String(body.error), query).toContain(message);
    }
  });

  test("GET /api/candles: the range oldest first, open/high/low/close as decimal strings, at most `limit` (the newest)", async () => {
    const { status, body } = await get(`/api/candles?symbol=ETH-PERP&from=${start}&to=${now}`);
    expect(status).toBe(200);
    const candles = body.candles as { time: number; open: string; high: string; low: string; close: string }[];
    expect(candles).toHaveLength(30);
    expect(candles[0]).toEqual({ time: start, open: "3000", high: "3000.5", low: "2999.5", close: "2999.5" });
    expect(candles[9]).toEqual({
      time: start + 9 * MINUTE,
      open: "3009",
      high: "3009.5",
      low: "3008.5",
      close: "3008.5",
    });
    const limited = await get(`/api/candles?symbol=ETH-PERP&from=${start}&limit=5`);
    expect((limited.body.candles as { time: number }[]).map((c) => c.time)).toEqual(
      [25, 26, 27, 28, 29].map((i) => start + i * MINUTE),
    );
    expect((await get(`/api/candles?symbol=BTC-PERP&from=${start}`)).body.candles).toEqual([]);
  });

  test("position details carry its chart; the chart page renders the levels and candles without JavaScript", async () => {
    const controls: AdvancedControls = {
      takeProfits: [
        { portfolio: 0.5, priceDeviation: 0.01, enabled: true },
        { portfolio: 0.5, priceDeviation: 0.02, enabled: true },
      ],
      stopLossOffset: 0.01,
      breakEven: true,
      trailingStop: { activation: 0.015, execute: 0.005 },
    };
    const id = randomUUID();
    await insertPosition(db(), {
      id,
      symbol: "ETH-PERP",
      side: "long",
      quantity: "1",
      entryPrice: "3010",
      currentPrice: "3029",
      entryTradeId: null,
      advancedControls: controls,
      leverage: 1,
      marginType: "cross",
      source: "manual",
      signalId: null,
      fees: "0",
    });
    // Opened 20 minutes ago: the chart starts 15 minutes before (35 minutes back: every kept candle).
    await db()
      .updateTable("positions")
      .set({ created_at: now - 20 * MINUTE })
      .where("id", "=", id)
      .execute();

    const { status, body } = await get(`/api/positions/${id}/details`);
    expect(status).toBe(200);
    const chart = body.chart as PriceChartData;
    expect(chart.symbol).toBe("ETH-PERP");
    expect(chart.candles.length).toBe(30);
    // BE (decision 046): entry + its fees (none paid here) + the exit's 0.06 %: 3010 / 0.9994 = 3011.807…, up to the tick; no offset in these controls.
    expect(chart.levels.map((l) => `${l.title} ${l.price}`)).toEqual([
      "Entry 3010",
      "TP1 3040.1",
      "TP2 3070.2",
      "SL 2979.9",
      "BE 3011.81",
      "Trail on 3055.15",
    ]);
    expect(chart.markers).toEqual([]);

    const page = await app.fetch(`/positions/${id}/chart`, { cookie: user });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-testid="price-chart-fallback"');
    expect(html).toContain("Latest candles (the chart needs JavaScript)");
    for (const text of ["TP1", "3040.1", "SL", "2979.9", "Trail on", "3055.15"]) expect(html).toContain(text);
    expect(html).toContain("3029.5"); // the newest candle's high
    expect((await app.fetch(`/positions/${randomUUID()}/chart`, { cookie: user })).status).toBe(404);
    expect((await app.fetch(`/positions/${id}/chart`)).status).toBe(302); // to the login
  });
});
