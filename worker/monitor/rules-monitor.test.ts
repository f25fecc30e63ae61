// The monitor's writes on both dialects: a tick where nothing changes writes nothing (the
// once-a-minute price mark aside), the state that changed is written in the same tick, and
// the positions list shows the market price whatever the stored one.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { controlsFor } from "#app/core/orders/controls.ts";
import { DEFAULT_TRADING_CONFIG } from "#app/core/schemas/trading-config.ts";
import { listPositionViews } from "#app/services/positions.server.ts";
import { getPosition, insertPosition } from "#db/queries/positions.ts";
import { type TestDatabase, createTestDatabase, testDialects } from "#tests/setup/db.ts";
import { createTradingProductResolver } from "#exchange/trading-product.ts";
import { parseRuleState } from "#app/core/rules/index.ts";
import { monitorPositions } from "./rules-monitor.ts";

describe.each(testDialects())("rules monitor writes on %s", (dialect) => {
  let database: TestDatabase;
  // No balances: no equity, so portfolioPercent stays out of it (it moves with every price).
  const exchange = { getBalances: async () => [] };
  const db = () => database.db;

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    await setPrice(db(), "ETH-PERP", "3000", "test");
    await insertPosition(db(), {
      id: "p-eth",
      symbol: "ETH-PERP",
      side: "long",
      quantity: "1",
      entryPrice: "3000",
      currentPrice: "3000",
      entryTradeId: null,
      advancedControls: controlsFor(DEFAULT_TRADING_CONFIG, "signal"),
      leverage: 1,
      marginType: "cross",
      source: "signal",
      signalId: null,
      fees: "0",
    });
  });
  afterEach(async () => {
    await database.cleanup();
  });

  test("the price mark is due once per interval; state changes are written at once; the list shows the market price", async () => {
    // First tick for this database: the mark is due (every open position gets the price).
    const first = await monitorPositions(db(), new Map([["ETH-PERP", "2990"]]), { exchange, markIntervalMs: 60_000 });
    expect(first.evaluated).toBe(1);
    let stored = await getPosition(db(), "p-eth");
    expect(stored!.currentPrice).toBe("2990");
    expect(stored!.maxDrawdown).toBe("0.3334"); // 10 / 3000 × 100, 4 decimals rounded up (the engine never understates it)

    // Up again (no new worst, nothing else changes): nothing is written...
    const quiet = await monitorPositions(db(), new Map([["ETH-PERP", "3005"]]), { exchange, markIntervalMs: 60_000 });
    expect(quiet.updated).toBe(0);
    stored = await getPosition(db(), "p-eth");
    expect(stored!.currentPrice).toBe("2990");
    // ...and the screens still show the latest market price.
    await setPrice(db(), "ETH-PERP", "3005", "test");
    const [view] = await listPositionViews(db());
    expect(view).toMatchObject({ id: "p-eth", currentPrice: "3005", unrealizedPnl: "5" });

    // A new worst excursion is written in the same tick, with its price.
    const worse = await monitorPositions(db(), new Map([["ETH-PERP", "2988"]]), { exchange, markIntervalMs: 60_000 });
    expect(worse.updated).toBe(1);
    stored = await getPosition(db(), "p-eth");
    expect(stored).toMatchObject({ currentPrice: "2988", maxDrawdown: "0.4" });

    // markIntervalMs 0: every tick writes the price.
    const marked = await monitorPositions(db(), new Map([["ETH-PERP", "3001"]]), { exchange, markIntervalMs: 0 });
    expect(marked.updated).toBe(0); // no rule state changed; the mark is not counted
    expect((await getPosition(db(), "p-eth"))!.currentPrice).toBe("3001");
  });

  test("take-profits are sized with the products it is given: whole Coinbase contracts, or the simulator's increments", async () => {
    const open = (id: string, quantity: string) =>
      insertPosition(db(), {
        id,
        symbol: "BTC-PERP",
        side: "long",
        quantity,
        entryPrice: "95000",
        currentPrice: "95000",
        entryTradeId: null,
        advancedControls: controlsFor(DEFAULT_TRADING_CONFIG, "signal"), // TP 20 / 30 / 50 % at +0.5 / 1 / 1.5 %
        leverage: 1,
        marginType: "cross",
        source: "signal",
        signalId: null,
        fees: "0",
      });
    const requested = async (id: string) => {
      const jobs = await db()
        .selectFrom("jobs")
        .select(["job_key", "payload"])
        .where("job_key", "like", `rule:${id}:%`)
        .execute();
      return jobs.map((j) => [j.job_key, (typeof j.payload === "string" ? JSON.parse(j.payload) : j.payload).quantity]);
    };
    const contracts = createTradingProductResolver(db(), { coinbaseContractsOn: async () => true }); // BTC: 0.01
    await open("p-two", "0.02");
    await open("p-one", "0.01");
    await monitorPositions(db(), new Map([["BTC-PERP", "95500"]]), { exchange, products: contracts });
    // 2 contracts × 20 % = 0.4 → at least one contract; 1 contract: TP1 is skipped, nothing sent.
    expect(await requested("p-two")).toEqual([["rule:p-two:tp1", "0.01"]]);
    expect(await requested("p-one")).toEqual([]);
    expect(parseRuleState((await getPosition(db(), "p-one"))!.ruleState).tpSkipped).toEqual([0]);

    // The simulator's own increments (0.0001 BTC): 0.02 × 20 % = 0.004.
    await db().deleteFrom("jobs").execute();
    await open("p-sim", "0.02");
    await monitorPositions(db(), new Map([["BTC-PERP", "95500"]]), {
      exchange,
      products: createTradingProductResolver(db(), { coinbaseContractsOn: async () => false }),
    });
    expect(await requested("p-sim")).toEqual([["rule:p-sim:tp1", "0.004"]]);
  });
});
