// The Trade History screen on its four paths (docs/spec/screens.md) as served, and the trade details
// call GET /api/trades/{id}/details (docs/spec/api.md#shapes, api.md): 401, 404, the answer's shape.
import { beforeAll, describe, expect, test } from "vitest";
import { insertSignal } from "#db/queries/signals.ts";
import { tradeHistoryCsv } from "#app/core/trade-history.ts";
import { type Trade, insertTrade, updateTrade } from "#db/queries/trades.ts";
import { freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { TRADE_TABLE_COLUMNS } from "#tests/setup/fixtures.ts";

const PATHS = ["/history", "/trade-history", "/trades", "/signals"];

const rows = (html: string) => html.match(/data-testid="trade-row"/g)?.length ?? 0;

describe.each(testDialects())("trade history screen on %s", (dialect) => {
  const app = freshApp(dialect);
  let user: string;

  beforeAll(async () => {
    await registerVia(app, "history_admin");
    user = (await registerVia(app, "history_user")).cookie;
  });

  test("every path renders the screen with 'No trades found' before any trade", async () => {
    for (const path of PATHS) {
      const response = await app.fetch(path, { cookie: user });
      expect(response.status, path).toBe(200);
      const html = await response.text();
      for (const text of [
        "Trade History",
        "Total Trades",
        "Completed",
        "Failed",
        "P&amp;L",
        "Export",
        "Clear Filters",
        "No trades found",
        ...TRADE_TABLE_COLUMNS,
      ]) {
        expect(html, `${path}: ${text}`).toContain(text);
      }
      for (const option of ["All", "Executed", "Pending", "Failed"]) expect(html).toContain(`>${option}</option>`);
      expect(rows(html)).toBe(0);
      // One empty state, which CSS shows as a card below 600 px (ui/phone-cards.css.ts): no second copy.
      expect(html.match(/No trades found/g)?.length ?? 0, path).toBe(1);
      expect(html).toContain('data-testid="trade-history-empty"');
    }
  });

  test("the details call: 401 without a session, 404 JSON for an unknown id, 405 for other methods", async () => {
    const anonymous = await app.fetch("/api/trades/whatever/details");
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: expect.any(String) });
    const missing = await app.fetch("/api/trades/00000000-0000-0000-0000-000000000000/details", { cookie: user });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/application\/json/);
    expect(await missing.json()).toEqual({ error: "Trade not found" });
    const post = await app.fetch("/api/trades/x/details", { method: "POST", cookie: user });
    expect(post.status).toBe(405);
  });

  test("a manual order appears on every path; its details have the SPEC shape", async () => {
    const placed = await app.fetch("/manual-trading", {
      method: "POST",
      cookie: user,
      form: {
        intent: "place-order",
        side: "buy",
        symbol: "ETH-PERP",
        orderType: "limit",
        amountType: "quantity",
        quantity: "0.5",
        price: "2000",
        leverage: "2",
        marginType: "cross",
      },
    });
    expect(placed.status).toBe(302);
    const [trade] = (await (await app.fetch("/api/trades?limit=50", { cookie: user })).json()) as {
      id: string;
      symbol: string;
    }[];
    expect(trade).toMatchObject({ symbol: "ETH-PERP" });

    for (const path of PATHS) {
      const html = await (await app.fetch(path, { cookie: user })).text();
      expect(rows(html), path).toBe(1);
      expect(html).not.toContain("No trades found");
      expect(html).toContain(`data-trade-id="${trade!.id}"`);
      // SPEC's fixed placeholders.
      for (const cell of ["N/A", "None", "Inactive", "100%"]) expect(html).toContain(`>${cell}<`);
      expect(html).toContain("2000.0000");
      // The same row is the phone card without JavaScript (issue 25; CSS lays it out below 600 px,
      // ui/phone-cards.css.ts): its cells carry the labels the card shows, and there is no second copy.
      expect(html.match(/data-trade-id="/g)?.length ?? 0, path).toBe(1);
      const cardAt = html.indexOf('data-testid="trade-row"');
      const card = html.slice(cardAt, html.indexOf("</tr>", cardAt));
      expect(card).toContain(`data-trade-id="${trade!.id}"`);
      for (const fact of [
        /data-label="Entry"[^>]*>2000\.0000</,
        /0\.5000 · limit · manual</,
        /data-label="SL"[^>]*><span[^>]*>None</,
        /data-label="BE"[^>]*><span[^>]*>Inactive</,
        /data-label="Trailing"[^>]*><span[^>]*>Inactive</,
      ])
        expect(card, String(fact)).toMatch(fact);
    }

    // Export without JavaScript: the button is a link to the page's CSV, the same file the
    // browser writes from the rows shown (trade-history.csv, its columns).
    const html = await (await app.fetch("/history?symbol=eth", { cookie: user })).text();
    expect(html).toContain(
      'href="/api/trades?limit=50&amp;format=csv&amp;search=eth" download="trade-history.csv" data-testid="trade-history-export"',
    );
    const csv = await app.fetch("/api/trades?limit=50&format=csv&search=eth", { cookie: user });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="trade-history.csv"');
    const page = (await (await app.fetch("/api/trades?search=eth&limit=50", { cookie: user })).json()) as Trade[];
    expect(await csv.text()).toBe(tradeHistoryCsv(page));
    expect((await app.fetch("/api/trades?format=csv")).status).toBe(401);

    const response = await app.fetch(`/api/trades/${trade!.id}/details`, { cookie: user });
    expect(response.status).toBe(200);
    const details = (await response.json()) as Record<string, unknown>;
    // SPEC's four keys, plus the price chart of issue 13 (decision 032).
    expect(Object.keys(details).sort()).toEqual(["chart", "metrics", "relatedSignal", "relatedTrades", "trade"]);
    expect(details).toMatchObject({
      trade: {
        id: trade!.id,
        symbol: "ETH-PERP",
        side: "buy",
        orderType: "limit",
        status: "pending",
        source: "manual",
        exchange: "simulator",
      },
      relatedSignal: null,
      relatedTrades: [],
      // A resting limit: quantity × price, the fee estimated at the taker rate.
      metrics: { totalValue: "1000", estimatedFees: "0.6", executedQuantity: "0" },
    });
  });

  test("a signal's trades: the related signal, the related trades, the metrics of a fill", async () => {
    const db = app.database.db;
    const signalId = "5161a100-0000-4000-8000-000000000001";
    await insertSignal(db, {
      id: signalId,
      action: "sell",
      symbol: "BTC-PERP",
      orderType: "market",
      price: null,
      quantity: "0.02",
      payload: { action: "sell" },
      strategy: null,
      signalTime: null,
      dedupeKey: "history-test-1",
      status: "executed",
    });
    const first = "7a1de000-0000-4000-8000-000000000001";
    const second = "7a1de000-0000-4000-8000-000000000002";
    // The signal's two market sells of 0.01 BTC on the simulator.
    const signalSell = {
      symbol: "BTC-PERP",
      side: "sell",
      orderType: "market",
      quantity: "0.01",
      price: null,
    } as const;
    const ofSignal = { source: "signal", exchange: "simulator", signalId };
    await insertTrade(db, { ...signalSell, ...ofSignal, id: first, clientOrderId: "history-c1" });
    await updateTrade(db, first, {
      status: "executed",
      orderId: "sim-order-000000000001",
      executedPrice: "95000.5",
      executedQuantity: "0.01",
      fee: "0.57",
      executedAt: Date.now(),
    });
    await insertTrade(db, {
      ...signalSell,
      ...ofSignal,
      id: second,
      clientOrderId: "history-c2",
      status: "failed",
      errorMessage: "Insufficient margin",
    });

    const details = (await (await app.fetch(`/api/trades/${first}/details`, { cookie: user })).json()) as {
      trade: { id: string; orderId: string };
      relatedSignal: { id: string; action: string; createdAt: string };
      relatedTrades: { id: string; status: string }[];
      metrics: Record<string, string>;
    };
    expect(details.trade).toMatchObject({ id: first, orderId: "sim-order-000000000001" });
    expect(details.relatedSignal).toEqual({
      id: signalId,
      action: "sell",
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(details.relatedTrades.map((t) => [t.id, t.status])).toEqual([[second, "failed"]]);
    expect(details.metrics).toEqual({ totalValue: "950.005", estimatedFees: "0.57", executedQuantity: "0.01" });

    // The screen: three rows now; the filters of the URL apply without JavaScript.
    const all = await (await app.fetch("/history", { cookie: user })).text();
    expect(rows(all)).toBe(3);
    const failed = await (await app.fetch("/trades?status=failed", { cookie: user })).text();
    expect(rows(failed)).toBe(1);
    expect(failed).toContain(`data-trade-id="${second}"`);
    const executed = await (await app.fetch("/signals?status=executed&symbol=btc", { cookie: user })).text();
    expect(rows(executed)).toBe(1);
    expect(executed).toContain(`data-trade-id="${first}"`);
    const none = await (await app.fetch("/trade-history?symbol=SOL", { cookie: user })).text();
    expect(rows(none)).toBe(0);
    expect(none).toContain("No trades found");
    // The summary counts the filter's orders (issue 22: the header follows the filter).
    expect(none).toMatch(/data-testid="card-total-trades"[\s\S]*?>0</);
    expect(failed).toMatch(/data-testid="card-total-trades"[\s\S]*?>1</);
    expect(failed).toMatch(/data-testid="card-failed"[\s\S]*?>1</);
    expect(all).toMatch(/data-testid="card-total-trades"[\s\S]*?>3</);
  });
});
