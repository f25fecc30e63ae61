// Trade History's header follows its filter, and its rows page (issue 22), on both databases.
//
// Seeded (fills consistent with FIFO, so the statistics ledger agrees with the rows):
//   strategy Alpha, ETH-PERP position (funding −0.6):
//     buy 1 @ 3000 fee 1.8; sell 1 @ 2990 fee 1.794 → −10 − 1.8 − 1.794 = −13.594; a failed order
//   manual, BTC-PERP position (funding +0.96):
//     buy 0.1 @ 95000 fee 5.7; sell 0.1 @ 96000 fee 5.76 → 100 − 5.7 − 5.76 = 88.54; a pending order
//   all:      88.54 − 13.594 + 0.36 of funding = 75.306 (2 closing trades, 6 orders, 4 filled, 1 failed)
//   Alpha:    −13.594 − 0.6 = −14.194 (its rows add up to −13.594; 3 orders, 2 filled, 1 failed)
//   "btc":    88.54 + 0.96 = 89.5 (3 orders, 2 filled)
//   failed:   0 (1 order, 1 failed); pending: 0
// Before the fix the header said 75.306 whatever the filter.
import { beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { getStatsLedger } from "#app/services/statistics.server.ts";
import { freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

interface TradeJson {
  id: string;
  symbol: string;
  status: string;
  realizedPnl: string | null;
  createdAt: string;
}
interface Pnl {
  totalPnL: string;
  realizedMatches: number;
  closingTrades: number;
  funding?: string;
}
interface Counts {
  total: number;
  completed: number;
  failed: number;
}
type Totals = Counts & { pnl: Pnl };

const T0 = Date.parse("2026-11-20T10:00:00Z");
const ALPHA = "strat-alpha";

describe.each(testDialects())("trade history: totals under a filter and paging on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  const db = () => app.database.db;
  const get = async <T>(path: string) => {
    const response = await app.fetch(path, { cookie: admin });
    expect(response.status, path).toBe(200);
    return { body: (await response.json()) as T, next: response.headers.get("x-next-cursor") };
  };
  const screen = async (query: string) =>
    (
      await get<{ trades: TradeJson[]; nextCursor: string | null; totals: Counts }>(
        `/history?${query}${query ? "&" : ""}_data=${encodeURIComponent("routes/_app+/history")}`,
      )
    ).body;

  let n = 0;
  const trade = async (row: {
    symbol: string;
    side: "buy" | "sell";
    qty: string;
    price?: string;
    fee?: string;
    pnl?: string | null;
    status?: string;
    position?: string | null;
    strategy?: string | null;
    at: number;
  }) => {
    n += 1;
    const id = `t-${String(n).padStart(4, "0")}-${row.symbol.slice(0, 3).toLowerCase()}`;
    const filled = (row.status ?? "executed") === "executed";
    await db()
      .insertInto("trades")
      .values({
        id,
        symbol: row.symbol,
        side: row.side,
        order_type: "market",
        quantity: row.qty,
        price: null,
        status: row.status ?? "executed",
        source: row.strategy ? "signal" : "manual",
        client_order_id: `pd-${id}`,
        exchange: "simulator",
        executed_price: filled ? row.price! : null,
        executed_quantity: filled ? row.qty : "0",
        fee: row.fee ?? "0",
        realized_pnl: row.pnl ?? null,
        position_id: row.position ?? null,
        strategy_id: row.strategy ?? null,
        executed_at: filled ? row.at : null,
        created_at: row.at,
        updated_at: row.at,
      })
      .execute();
    return id;
  };
  const position = (id: string, symbol: string, strategy: string | null, funding: string, realized: string) =>
    db()
      .insertInto("positions")
      .values({
        id,
        symbol,
        side: "long",
        quantity: symbol === "ETH-PERP" ? "1" : "0.1",
        remaining_quantity: "0",
        entry_price: symbol === "ETH-PERP" ? "3000" : "95000",
        status: "closed",
        source: strategy ? "signal" : "manual",
        strategy_id: strategy,
        funding,
        realized_pnl: realized,
        created_at: T0,
        updated_at: T0,
        closed_at: T0 + 60_000,
      })
      .execute();
  const funding = (id: string, positionId: string, symbol: string, amount: string) =>
    db()
      .insertInto("funding_payments")
      .values({
        id,
        exchange: "simulator",
        exchange_ref: `sim-${id}`,
        position_id: positionId,
        symbol,
        side: "long",
        quantity: "1",
        mark_price: "3000",
        rate: "0.0001",
        amount,
        interval_start: T0,
        created_at: T0 + 30_000,
      })
      .execute();

  beforeAll(async () => {
    admin = (await registerVia(app, "history_admin", "secret123", "admin")).cookie;
    await position("pos-eth", "ETH-PERP", ALPHA, "-0.6", "-14.194");
    await position("pos-btc", "BTC-PERP", null, "0.96", "89.5");
    await trade({
      symbol: "ETH-PERP",
      side: "buy",
      qty: "1",
      price: "3000",
      fee: "1.8",
      position: "pos-eth",
      strategy: ALPHA,
      at: T0,
    });
    await trade({
      symbol: "BTC-PERP",
      side: "buy",
      qty: "0.1",
      price: "95000",
      fee: "5.7",
      position: "pos-btc",
      at: T0 + 1000,
    });
    await trade({
      symbol: "ETH-PERP",
      side: "sell",
      qty: "1",
      price: "2990",
      fee: "1.794",
      pnl: "-13.594",
      position: "pos-eth",
      strategy: ALPHA,
      at: T0 + 60_000,
    });
    await trade({
      symbol: "BTC-PERP",
      side: "sell",
      qty: "0.1",
      price: "96000",
      fee: "5.76",
      pnl: "88.54",
      position: "pos-btc",
      at: T0 + 61_000,
    });
    await trade({ symbol: "ETH-PERP", side: "buy", qty: "2", status: "failed", strategy: ALPHA, at: T0 + 62_000 });
    await trade({ symbol: "BTC-PERP", side: "buy", qty: "0.2", status: "pending", at: T0 + 63_000 });
    await funding("f-eth", "pos-eth", "ETH-PERP", "-0.6");
    await funding("f-btc", "pos-btc", "BTC-PERP", "0.96");
  });

  test("the header's totals are the filter's: the rows' realized P&L plus the filter's funding, and the counts of every matching order", async () => {
    // The ledger replays the same fills: the seeded figures are FIFO's.
    expect((await getStatsLedger(db())).closedTradesPnl()).toEqual({
      totalPnL: "74.946",
      realizedMatches: 2,
      closingTrades: 2,
    });
    const cases: [string, Totals][] = [
      [
        "",
        {
          total: 6,
          completed: 4,
          failed: 1,
          pnl: { totalPnL: "75.306", realizedMatches: 2, closingTrades: 2, funding: "0.36" },
        },
      ],
      [
        `strategy=${ALPHA}`,
        {
          total: 3,
          completed: 2,
          failed: 1,
          pnl: { totalPnL: "-14.194", realizedMatches: 1, closingTrades: 1, funding: "-0.6" },
        },
      ],
      [
        "search=btc",
        {
          total: 3,
          completed: 2,
          failed: 0,
          pnl: { totalPnL: "89.5", realizedMatches: 1, closingTrades: 1, funding: "0.96" },
        },
      ],
      [
        "symbol=BTC-PERP",
        {
          total: 3,
          completed: 2,
          failed: 0,
          pnl: { totalPnL: "89.5", realizedMatches: 1, closingTrades: 1, funding: "0.96" },
        },
      ],
      [
        "status=executed",
        {
          total: 4,
          completed: 4,
          failed: 0,
          pnl: { totalPnL: "75.306", realizedMatches: 2, closingTrades: 2, funding: "0.36" },
        },
      ],
      [
        "status=failed",
        { total: 1, completed: 0, failed: 1, pnl: { totalPnL: "0", realizedMatches: 0, closingTrades: 0 } },
      ],
      [
        `status=executed&strategy=${ALPHA}&search=eth`,
        {
          total: 2,
          completed: 2,
          failed: 0,
          pnl: { totalPnL: "-14.194", realizedMatches: 1, closingTrades: 1, funding: "-0.6" },
        },
      ],
      [
        `search=btc&strategy=${ALPHA}`,
        { total: 0, completed: 0, failed: 0, pnl: { totalPnL: "0", realizedMatches: 0, closingTrades: 0 } },
      ],
    ];
    for (const [query, expected] of cases) {
      const { pnl, ...counts } = expected;
      expect((await get<Counts>(`/api/trades/summary?${query}`)).body, query).toEqual(counts);
      expect((await get<Pnl>(`/api/closed-trades-pnl${query ? `?${query}` : ""}`)).body, query).toEqual(pnl);
      // The rows of the same filter add up to the total less its funding.
      const rows = (await get<TradeJson[]>(`/api/trades?limit=1000${query ? `&${query}` : ""}`)).body;
      expect(rows, query).toHaveLength(expected.total);
      const sum = rows.reduce((s, t) => s.plus(t.realizedPnl ?? "0"), D(0));
      expect(sum.plus(expected.pnl.funding ?? "0").toString(), query).toBe(expected.pnl.totalPnL);
    }
    // Without the filter's parameters the API keeps its SPEC answer (the all-time total).
    expect((await get<Pnl>("/api/closed-trades-pnl")).body).toEqual({
      totalPnL: "75.306",
      realizedMatches: 2,
      closingTrades: 2,
      funding: "0.36",
    });

    // The screen's first paint (what a browser without JavaScript shows) counts the same, with
    // its own parameters (its P&L card loads GET /api/closed-trades-pnl with them in the browser).
    const countsOf = (totals: Totals): Counts => ({
      total: totals.total,
      completed: totals.completed,
      failed: totals.failed,
    });
    const all = await screen("");
    expect(all.totals).toEqual(countsOf(cases[0]![1]));
    expect(all.trades).toHaveLength(6);
    const alpha = await screen(`strategy=${ALPHA}`);
    expect(alpha.totals).toEqual(countsOf(cases[1]![1]));
    expect(alpha.trades.map((t) => t.symbol)).toEqual(["ETH-PERP", "ETH-PERP", "ETH-PERP"]);
    const btc = await screen("symbol=btc&status=executed");
    expect(btc.totals).toEqual({ total: 2, completed: 2, failed: 0 });
    expect(btc.trades.map((t) => [t.symbol, t.status])).toEqual([
      ["BTC-PERP", "executed"],
      ["BTC-PERP", "executed"],
    ]);
    expect(btc.nextCursor).toBeNull();
  });

  test("rows page by cursor, each row once, while new trades arrive; the screen pages without JavaScript", async () => {
    // 120 SOL orders, three at each millisecond (the cursor breaks ties by id).
    const seeded: string[] = [];
    for (let i = 0; i < 120; i++)
      seeded.push(
        await trade({
          symbol: "SOL-PERP",
          side: "buy",
          qty: "1",
          status: "cancelled",
          at: T0 + 100_000 + Math.floor(i / 3),
        }),
      );

    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const page: { body: TradeJson[]; next: string | null } = await get<TradeJson[]>(
        `/api/trades?search=sol&limit=50${next ? `&before=${encodeURIComponent(next)}` : ""}`,
      );
      seen.push(...page.body.map((t) => t.id));
      next = page.next;
      pages += 1;
      // New orders arrive between the page requests: newer than the first page, they never shift one.
      for (let k = 0; k < 7; k++)
        await trade({ symbol: "SOL-PERP", side: "sell", qty: "1", status: "cancelled", at: Date.now() + k });
    } while (next && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect([...seen].sort()).toEqual([...seeded].sort());
    // Newest first across the pages.
    expect(seen).toEqual([...seeded].reverse());

    // The screen: its page of 50, the cursor the Older link carries, and the next page from it.
    const first = await screen("symbol=sol&status=all");
    expect(first.trades).toHaveLength(50);
    expect(first.totals).toEqual({ total: 141, completed: 0, failed: 0 });
    expect((await get<Pnl>("/api/closed-trades-pnl?search=sol")).body).toEqual({
      totalPnL: "0",
      realizedMatches: 0,
      closingTrades: 0,
    });
    const html = await (await app.fetch("/history?symbol=sol", { cookie: admin })).text();
    const href = /<a href="([^"]*before=[^"]*)"[^>]*data-testid="trades-older"/.exec(html)?.[1]?.replace(/&amp;/g, "&");
    expect(href).toBe(`/history?symbol=sol&before=${encodeURIComponent(first.nextCursor!)}`);
    const second = await screen(href!.slice("/history?".length));
    expect(second.trades).toHaveLength(50);
    expect(second.trades.map((t) => t.id).filter((id) => first.trades.some((t) => t.id === id))).toEqual([]);
    expect(second.totals).toEqual(first.totals);

    // Malformed cursors are the newest page, not an error.
    expect((await get<TradeJson[]>("/api/trades?limit=5&before=nonsense")).body).toHaveLength(5);
  });
});
