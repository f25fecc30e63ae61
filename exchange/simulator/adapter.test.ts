// The paper-trading exchange on both dialects. Every expected amount below is computed by
// hand in the comment beside it (defaults: taker fee 0.0006, maker fee 0.0002, slippage
// 0.0005, starting balance 10000 USDC).
import { InsertQueryNode, type KyselyPlugin, type QueryId } from "kysely";
import { beforeEach, describe, expect, test } from "vitest";
import { D, sum } from "#app/core/decimal.ts";
import {
  InsufficientFundsError,
  InvalidOrderError,
  OrderNotFoundError,
  TemporaryError,
} from "#app/core/exchange/errors.ts";
import type { PlaceOrderRequest } from "#app/core/exchange/types.ts";
import { testDialects } from "#tests/setup/db.ts";
import { DEFAULT_PAPER_PROFILE_KEY } from "./account.ts";
import { SimulatorAdapter, type SimulatorOptions } from "./adapter.ts";
import { setPrice } from "./price-feed.ts";
import { matchRestingOrders } from "./resting-orders.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

let sequence = 0;
const cid = () => `test-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

const market = (
  symbol: string,
  side: "buy" | "sell",
  quantity: string,
  extra: Partial<PlaceOrderRequest> = {},
): PlaceOrderRequest => ({
  clientOrderId: cid(),
  symbol,
  side,
  type: "market",
  quantity,
  ...extra,
});

const limit = (
  symbol: string,
  side: "buy" | "sell",
  quantity: string,
  price: string,
  extra: Partial<PlaceOrderRequest> = {},
): PlaceOrderRequest => ({
  ...market(symbol, side, quantity, extra),
  type: "limit",
  price,
});

/**
 * A plugin making the first INSERT into `table` fail, once it has run, the way InnoDB fails a
 * deadlock victim (errno 1213, as in db/queries/util.test.ts): the transaction it is in rolls
 * back, so whatever that attempt wrote before it must leave no trace.
 */
function deadlockOnFirstInsert(table: string) {
  const inserts = new WeakSet<QueryId>();
  let injected = 0;
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (InsertQueryNode.is(node) && node.into?.table.identifier.name === table) inserts.add(queryId);
      return node;
    },
    async transformResult({ queryId, result }) {
      if (injected === 0 && inserts.has(queryId)) {
        injected++;
        throw Object.assign(new Error("Deadlock found when trying to get lock; try restarting transaction"), {
          errno: 1213,
        });
      }
      return result;
    },
  };
  return { plugin, injected: () => injected };
}

describe.each(testDialects())("simulator exchange on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  beforeEach(async () => {
    const db = fresh.db;
    await db.deleteFrom("sim_orders").execute();
    await db.deleteFrom("sim_positions").execute();
    await db.deleteFrom("balances").execute();
    await db.deleteFrom("profiles").execute();
    await db.deleteFrom("market_prices").execute();
  });

  const sim = (options: SimulatorOptions = {}) => new SimulatorAdapter(fresh.db, options);
  const usdc = async (adapter: SimulatorAdapter) => (await adapter.getBalances()).find((b) => b.currency === "USDC")!;
  const positionRow = (symbol: string) =>
    fresh.db.selectFrom("sim_positions").selectAll().where("symbol", "=", symbol).executeTakeFirst();

  test("a paper profile is created once, even by four adapters starting together", async () => {
    const adapters = [sim(), sim(), sim(), sim()];
    const ids = await Promise.all(adapters.map((a) => a.ensureAccount()));
    expect(new Set(ids).size).toBe(1);
    const profiles = await fresh.db.selectFrom("profiles").selectAll().execute();
    expect(profiles).toHaveLength(1);
    expect(profiles[0]).toMatchObject({
      id: ids[0],
      profile_id: DEFAULT_PAPER_PROFILE_KEY,
      source: "simulator",
      name: "Paper trading",
      is_default: 1,
    });
    expect(await adapters[0]!.getBalances()).toEqual([{ currency: "USDC", available: "10000", hold: "0" }]);
    // A later start never resets the balance.
    await fresh.db.updateTable("balances").set({ available: "1234.5" }).execute();
    expect(await sim().getBalances()).toEqual([{ currency: "USDC", available: "1234.5", hold: "0" }]);
  });

  test("market buy then sell: slippage, taker fee, margin held then released, P&L credited", async () => {
    const adapter = sim();
    await setPrice(fresh.db, "BTC-PERP", "95000", "test");
    const buy = await adapter.placeOrder(market("BTC-PERP", "buy", "0.5", { leverage: 10 }));
    // fill 95000 x 1.0005 = 95047.5; notional 47523.75; fee x 0.0006 = 28.51425; margin / 10 = 4752.375
    expect(buy).toMatchObject({
      symbol: "BTC-PERP",
      side: "buy",
      type: "market",
      status: "filled",
      quantity: "0.5",
      price: null,
      filledQuantity: "0.5",
      averagePrice: "95047.5",
      fee: "28.51425",
      leverage: 10,
      marginType: "cross",
      rejectReason: null,
    });
    expect(Number.isNaN(Date.parse(buy.createdAt))).toBe(false);
    // available 10000 - 4752.375 - 28.51425 = 5219.11075
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "5219.11075", hold: "4752.375" });
    // unrealized at 95000: (95000 - 95047.5) x 0.5 = -23.75. Liquidation (cross, maintenance
    // 0.5 %): cushion 4752.375 + 5219.11075 = 9971.48575, (47523.75 - 9971.48575) / 0.4975
    // = 75481.93… → 75482 (app/core/orders/liquidation.ts).
    expect(await adapter.getPositions()).toEqual([
      {
        symbol: "BTC-PERP",
        side: "long",
        quantity: "0.5",
        entryPrice: "95047.5",
        markPrice: "95000",
        unrealizedPnl: "-23.75",
        leverage: 10,
        marginType: "cross",
        liquidationPrice: "75482",
      },
    ]);

    await setPrice(fresh.db, "BTC-PERP", "96000", "test");
    const sell = await adapter.placeOrder(market("BTC-PERP", "sell", "0.5", { leverage: 10 }));
    // fill 96000 x 0.9995 = 95952; fee 47976 x 0.0006 = 28.7856; realized (95952 - 95047.5) x 0.5 = 452.25
    expect(sell).toMatchObject({ status: "filled", averagePrice: "95952", fee: "28.7856", filledQuantity: "0.5" });
    // 5219.11075 + 4752.375 + 452.25 - 28.7856 = 10394.95015 (= 10000 - 28.51425 - 28.7856 + 452.25)
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "10394.95015", hold: "0" });
    expect(await adapter.getPositions()).toEqual([]);
    const row = await positionRow("BTC-PERP");
    expect(D(row!.realized_pnl).toString()).toBe("452.25");
    expect(row!.side).toBe("flat");
  });

  test("market sell opens a short: the seller receives less", async () => {
    const adapter = sim();
    await setPrice(fresh.db, "ETH-PERP", "3400", "test");
    const order = await adapter.placeOrder(market("ETH-PERP", "sell", "2", { leverage: 5 }));
    // fill 3400 x 0.9995 = 3398.3; notional 6796.6; fee 4.07796; margin 1359.32
    expect(order).toMatchObject({ status: "filled", averagePrice: "3398.3", fee: "4.07796" });
    // 10000 - 1359.32 - 4.07796 = 8636.60204
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "8636.60204", hold: "1359.32" });
    await setPrice(fresh.db, "ETH-PERP", "3300", "test");
    // short: (3398.3 - 3300) x 2 = 196.6
    expect(await adapter.getPositions()).toMatchObject([
      {
        symbol: "ETH-PERP",
        side: "short",
        quantity: "2",
        entryPrice: "3398.3",
        markPrice: "3300",
        unrealizedPnl: "196.6",
        leverage: 5,
      },
    ]);
  });

  test("the same client order id gives the first order back, never a second one", async () => {
    const adapter = sim();
    await setPrice(fresh.db, "ETH-PERP", "3000", "test");
    const request = market("ETH-PERP", "buy", "1");
    const first = await adapter.placeOrder(request);
    const again = await adapter.placeOrder({ ...request, quantity: "3", side: "sell" });
    expect(again).toEqual(first);
    expect(await adapter.findOrderByClientId(request.clientOrderId)).toEqual(first);
    expect(await adapter.getOrder(first.orderId)).toEqual(first);

    // Concurrent retries of one new id: one order.
    const racing = market("ETH-PERP", "buy", "1");
    const results = await Promise.all([sim(), sim(), sim()].map((a) => a.placeOrder(racing)));
    expect(new Set(results.map((r) => r.orderId)).size).toBe(1);
    const rows = await fresh.db.selectFrom("sim_orders").selectAll().execute();
    expect(rows).toHaveLength(2);
    // two fills of 1 ETH at 3001.5 (3000 x 1.0005): fee 1.8009 each, margin 3001.5 each
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "3993.3982", hold: "6003" });
    expect(await adapter.findOrderByClientId("never-sent")).toBeNull();
  });

  test("quantities round down to the increment; below the minimum is refused and not stored", async () => {
    const adapter = sim({ slippage: "0" });
    await setPrice(fresh.db, "BTC-PERP", "95000", "test");
    await setPrice(fresh.db, "XRP-PERP", "2.2", "test");
    const btc = await adapter.placeOrder(market("BTC-PERP", "buy", "0.00019"));
    expect(btc).toMatchObject({ quantity: "0.0001", filledQuantity: "0.0001", fee: "0.0057" }); // 9.5 x 0.0006
    const xrp = await adapter.placeOrder(market("XRP-PERP", "sell", "1.9"));
    expect(xrp).toMatchObject({ quantity: "1", filledQuantity: "1" });

    const tooSmall = market("BTC-PERP", "buy", "0.00009");
    await expect(adapter.placeOrder(tooSmall)).rejects.toThrow(InvalidOrderError);
    await expect(adapter.placeOrder(tooSmall)).rejects.toThrow(
      "Quantity 0.00009 BTC is below the minimum order size of 0.0001 BTC for BTC-PERP",
    );
    expect(await adapter.findOrderByClientId(tooSmall.clientOrderId)).toBeNull();
    await expect(adapter.placeOrder(market("DOGE-PERP", "buy", "1"))).rejects.toThrow("Unknown symbol DOGE-PERP");
    await expect(adapter.placeOrder(market("BTC-PERP", "buy", "-1"))).rejects.toThrow(InvalidOrderError);
    await expect(adapter.placeOrder(market("BTC-PERP", "buy", "abc"))).rejects.toThrow(
      "Quantity must be a number greater than 0",
    );
    await expect(adapter.placeOrder({ ...limit("ETH-PERP", "buy", "1", "0"), price: null })).rejects.toThrow(
      "A limit order needs a price greater than 0",
    );
    await expect(adapter.placeOrder(limit("ETH-PERP", "buy", "1", "0.004"))).rejects.toThrow(
      "below the price tick of 0.01",
    );

    // A limit price rounds to the nearest tick: 3000.005 -> 3000.01 (no ETH price stored: it rests).
    const resting = await adapter.placeOrder(limit("ETH-PERP", "buy", "1", "3000.005"));
    expect(resting).toMatchObject({ status: "open", price: "3000.01", filledQuantity: "0", averagePrice: null });
  });

  test("leverage must be a whole number from 1 to 10", async () => {
    const adapter = sim();
    await setPrice(fresh.db, "SOL-PERP", "180", "test");
    for (const leverage of [0, 11, 2.5, -1, Number.NaN]) {
      await expect(adapter.placeOrder(market("SOL-PERP", "buy", "1", { leverage }))).rejects.toThrow(
        `Leverage must be a whole number from 1 to 10, got ${leverage}`,
      );
    }
    expect((await adapter.placeOrder(market("SOL-PERP", "buy", "1", { leverage: 1 }))).leverage).toBe(1);
    expect((await adapter.placeOrder(market("SOL-PERP", "buy", "1", { leverage: 10 }))).leverage).toBe(10);
    expect(await fresh.db.selectFrom("sim_orders").selectAll().execute()).toHaveLength(2);
  });

  test("insufficient margin: rejected, stored as rejected, balance unchanged", async () => {
    const adapter = sim();
    await setPrice(fresh.db, "BTC-PERP", "95000", "test");
    const request = market("BTC-PERP", "buy", "1", { leverage: 1 });
    // needs 95047.5 margin + 57.0285 fee = 95104.5285
    const message = "Insufficient margin: order needs 95104.53 USDC, available 10000.00 USDC";
    const error = await adapter.placeOrder(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientFundsError);
    expect((error as Error).message).toBe(message);
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "10000", hold: "0" });
    expect(await adapter.getPositions()).toEqual([]);
    const stored = await adapter.findOrderByClientId(request.clientOrderId);
    expect(stored).toMatchObject({
      status: "rejected",
      rejectReason: message,
      filledQuantity: "0",
      fee: "0",
      averagePrice: null,
    });
    // A retry of the same id reports the stored rejection instead of trying again.
    expect(await adapter.placeOrder(request)).toEqual(stored);
    expect(await positionRow("BTC-PERP")).toBeUndefined();
  });

  test("net position: reduce, flip, close, with realized P&L credited exactly", async () => {
    const adapter = sim({ slippage: "0" });
    const db = fresh.db;
    await setPrice(db, "ETH-PERP", "3000", "test");
    await adapter.placeOrder(market("ETH-PERP", "buy", "2", { leverage: 2 }));
    // margin 6000 / 2 = 3000, fee 3.6
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "6996.4", hold: "3000" });

    await setPrice(db, "ETH-PERP", "3100", "test");
    const reduce = await adapter.placeOrder(market("ETH-PERP", "sell", "1", { leverage: 2 }));
    // realized +100, half the margin (1500) released, fee 1.86
    expect(reduce.fee).toBe("1.86");
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "8594.54", hold: "1500" });
    expect(await adapter.getPositions()).toMatchObject([
      { side: "long", quantity: "1", entryPrice: "3000", unrealizedPnl: "100" },
    ]);

    await setPrice(db, "ETH-PERP", "2900", "test");
    const flip = await adapter.placeOrder(market("ETH-PERP", "sell", "3", { leverage: 2 }));
    // close 1: realized -100, release 1500, fee 1.74; open 2 short @ 2900: margin 2900, fee 3.48
    expect(flip.fee).toBe("5.22");
    // 8594.54 + 1500 - 100 - 1.74 - 3.48 - 2900 = 7089.32
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "7089.32", hold: "2900" });
    expect(await adapter.getPositions()).toMatchObject([
      { side: "short", quantity: "2", entryPrice: "2900", unrealizedPnl: "0" },
    ]);

    await setPrice(db, "ETH-PERP", "2800", "test");
    await adapter.placeOrder(market("ETH-PERP", "buy", "2", { leverage: 2 }));
    // realized (2900 - 2800) x 2 = 200, release 2900, fee 3.36: 7089.32 + 2900 + 200 - 3.36
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "10185.96", hold: "0" });
    expect(await adapter.getPositions()).toEqual([]);
    // 10000 - fees (3.6 + 1.86 + 5.22 + 3.36 = 14.04) + realized (100 - 100 + 200) = 10185.96
    const row = await positionRow("ETH-PERP");
    expect(D(row!.realized_pnl).toString()).toBe("200");
    const orders = await db.selectFrom("sim_orders").select(["realized_pnl", "fee"]).execute();
    expect(sum(orders.map((o) => o.realized_pnl))).toBe("200");
    expect(sum(orders.map((o) => o.fee))).toBe("14.04");
  });

  test("extending a position averages the entry price exactly on both dialects", async () => {
    const adapter = sim({ slippage: "0", feeRate: "0" });
    await setPrice(fresh.db, "ETH-PERP", "3000", "test");
    await adapter.placeOrder(market("ETH-PERP", "buy", "1"));
    await setPrice(fresh.db, "ETH-PERP", "3100", "test");
    await adapter.placeOrder(market("ETH-PERP", "buy", "2"));
    // (3000 + 6200) / 3 = 3066.666... rounded to 18 places; unrealized at 3100 = 33.333...333 x 3
    expect(await adapter.getPositions()).toEqual([
      {
        symbol: "ETH-PERP",
        side: "long",
        quantity: "3",
        entryPrice: "3066.666666666666666667",
        markPrice: "3100",
        unrealizedPnl: "99.999999999999999999",
        leverage: 1,
        marginType: "cross",
        liquidationPrice: null, // 1x with 800 free: no positive price gets there
      },
    ]);
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "800", hold: "9200" });
  });

  test("reduce-only orders are trimmed to the open position and never open one", async () => {
    const adapter = sim({ slippage: "0" });
    await setPrice(fresh.db, "ETH-PERP", "3000", "test");
    await adapter.placeOrder(market("ETH-PERP", "buy", "1"));
    // Same direction as the position: nothing to reduce.
    const same = market("ETH-PERP", "buy", "1", { reduceOnly: true });
    await expect(adapter.placeOrder(same)).rejects.toThrow(
      "Reduce-only order rejected: no open ETH-PERP position to reduce",
    );
    expect(await adapter.findOrderByClientId(same.clientOrderId)).toMatchObject({ status: "rejected" });

    const close = await adapter.placeOrder(market("ETH-PERP", "sell", "5", { reduceOnly: true }));
    expect(close).toMatchObject({ status: "filled", quantity: "1", filledQuantity: "1", fee: "1.8" });
    expect(await adapter.getPositions()).toEqual([]);
    // 10000 - 1.8 (open) - 1.8 (close), no P&L at an unchanged price
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "9996.4", hold: "0" });

    const nothing = market("ETH-PERP", "sell", "1", { reduceOnly: true });
    const error = await adapter.placeOrder(nothing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOrderError);
    expect(error).not.toBeInstanceOf(InsufficientFundsError);
    expect(await adapter.findOrderByClientId(nothing.clientOrderId)).toMatchObject({
      status: "rejected",
      rejectReason: "Reduce-only order rejected: no open ETH-PERP position to reduce",
    });
    expect(await adapter.getPositions()).toEqual([]);
  });

  test("a limit rests, holds margin + maker fee, and fills at its price when the price crosses", async () => {
    const adapter = sim();
    const db = fresh.db;
    await setPrice(db, "ETH-PERP", "3000", "test");
    const order = await adapter.placeOrder(limit("ETH-PERP", "buy", "2", "2950", { leverage: 5 }));
    expect(order).toMatchObject({ status: "open", price: "2950", filledQuantity: "0", fee: "0" });
    // hold = 2 x 2950 / 5 = 1180 margin + 5900 x 0.0002 = 1.18 maker fee
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "8818.82", hold: "1181.18" });
    expect(await adapter.getOpenOrders()).toEqual([order]);

    expect(await matchRestingOrders(db, "ETH-PERP", "2960")).toEqual([]); // not crossed
    expect(await matchRestingOrders(db, "BTC-PERP", "1")).toEqual([]); // another symbol
    const [filled, ...rest] = await matchRestingOrders(db, "ETH-PERP", "2940");
    expect(rest).toEqual([]);
    expect(filled).toMatchObject({
      orderId: order.orderId,
      status: "filled",
      filledQuantity: "2",
      averagePrice: "2950",
      fee: "1.18",
    });
    // hold released, then margin 1180 held and fee 1.18 paid: 10000 - 1180 - 1.18
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "8818.82", hold: "1180" });
    expect(await adapter.getPositions()).toMatchObject([
      { side: "long", quantity: "2", entryPrice: "2950", leverage: 5 },
    ]);
    expect(await adapter.matchRestingOrders("ETH-PERP", "2000")).toEqual([]); // filled orders stay filled
    expect(await adapter.getOpenOrders()).toEqual([]);
  });

  test("a sell limit that closes a position reserves only its fee, and fills as a maker", async () => {
    const adapter = sim({ slippage: "0" });
    const db = fresh.db;
    await setPrice(db, "SOL-PERP", "180", "test");
    await adapter.placeOrder(market("SOL-PERP", "buy", "10", { leverage: 2 }));
    // margin 900, fee 1.08
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "9098.92", hold: "900" });
    const takeProfit = await adapter.placeOrder(limit("SOL-PERP", "sell", "10", "190", { leverage: 2 }));
    // opens nothing: hold = maker fee 1900 x 0.0002 = 0.38
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "9098.54", hold: "900.38" });
    await adapter.matchRestingOrders("SOL-PERP", "190.5");
    expect(await adapter.getOrder(takeProfit.orderId)).toMatchObject({
      status: "filled",
      averagePrice: "190",
      fee: "0.38",
    });
    // 9098.54 + 0.38 hold back + 900 margin + 100 P&L - 0.38 fee = 10098.54 (= 10000 - 1.08 - 0.38 + 100)
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "10098.54", hold: "0" });
  });

  test("a limit that already crosses fills at once as a taker, never worse than its limit", async () => {
    const adapter = sim();
    await setPrice(fresh.db, "ETH-PERP", "3000", "test");
    const sell = await adapter.placeOrder(limit("ETH-PERP", "sell", "1", "2900"));
    // taker price 3000 x 0.9995 = 2998.5 is better than 2900; taker fee 1.7991
    expect(sell).toMatchObject({ status: "filled", price: "2900", averagePrice: "2998.5", fee: "1.7991" });
    const buy = await adapter.placeOrder(limit("ETH-PERP", "buy", "1", "3001"));
    // taker price 3001.5 is worse than the limit 3001: fills at 3001, taker fee 1.8006
    expect(buy).toMatchObject({ status: "filled", averagePrice: "3001", fee: "1.8006" });
    expect(await adapter.getPositions()).toEqual([]);
  });

  test("cancel releases the hold; only open orders can be cancelled", async () => {
    const adapter = sim();
    await setPrice(fresh.db, "BTC-PERP", "95000", "test");
    const order = await adapter.placeOrder(limit("BTC-PERP", "sell", "0.1", "99000", { leverage: 3 }));
    // 9900 / 3 = 3300 margin + 1.98 maker fee
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "6698.02", hold: "3301.98" });
    const cancelled = await adapter.cancelOrder(order.orderId);
    expect(cancelled).toMatchObject({ orderId: order.orderId, status: "cancelled", filledQuantity: "0" });
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "10000", hold: "0" });
    expect(await adapter.cancelOrder(order.orderId)).toEqual(cancelled); // idempotent
    expect(await adapter.matchRestingOrders("BTC-PERP", "100000")).toEqual([]);
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "10000", hold: "0" });

    const filled = await adapter.placeOrder(market("BTC-PERP", "buy", "0.01"));
    await expect(adapter.cancelOrder(filled.orderId)).rejects.toThrow(
      `Order ${filled.orderId} is filled: only open orders can be cancelled`,
    );
    await expect(adapter.cancelOrder("00000000-0000-0000-0000-000000000000")).rejects.toThrow(OrderNotFoundError);
    await expect(adapter.getOrder("00000000-0000-0000-0000-000000000000")).rejects.toThrow(OrderNotFoundError);
  });

  test("a resting limit that cannot be afforded any more is cancelled at the cross, with the reason", async () => {
    const adapter = sim({ slippage: "0", startingBalance: "1000" });
    const db = fresh.db;
    await setPrice(db, "ETH-PERP", "3000", "test");
    const order = await adapter.placeOrder(limit("ETH-PERP", "buy", "1", "2900", { leverage: 5 }));
    // hold 580 margin + 0.58 maker fee: available 419.42; then a loss elsewhere leaves available at -10
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "419.42", hold: "580.58" });
    await db.updateTable("balances").set({ available: "-10" }).execute();
    const [changed, ...rest] = await adapter.matchRestingOrders("ETH-PERP", "2900");
    expect(rest).toEqual([]);
    // the hold comes back (-10 + 580.58 = 570.58), which cannot carry 580.58
    expect(changed).toMatchObject({ orderId: order.orderId, status: "cancelled", filledQuantity: "0" });
    expect(changed!.rejectReason).toBe(
      "Insufficient margin: order needs 580.58 USDC, available 570.58 USDC when the limit price was reached",
    );
    expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "570.58", hold: "0" });
    expect(await adapter.getPositions()).toEqual([]);
  });

  test("balances, products, ticker and connection test report the paper account", async () => {
    const adapter = sim();
    const db = fresh.db;
    expect(await adapter.testConnection()).toEqual({
      success: true,
      message: "Simulator ready: 10000.00 USDC available",
    });
    expect(adapter.name).toBe("simulator");
    expect(adapter.label).toBe("Simulator (paper trading)");

    // No price yet: market orders are a temporary error and nothing is stored.
    const early = market("BTC-PERP", "buy", "0.01");
    await expect(adapter.placeOrder(early)).rejects.toThrow(TemporaryError);
    expect(await adapter.findOrderByClientId(early.clientOrderId)).toBeNull();
    await expect(adapter.getTicker("BTC-PERP")).rejects.toThrow(TemporaryError);

    await setPrice(db, "BTC-PERP", "95000", "test");
    await setPrice(db, "ETH-PERP", "3400.5", "coinbase", { bid: "3400.4", ask: "3400.6" });
    const products = await adapter.getProducts();
    expect(products.map((p) => [p.symbol, p.price, p.status])).toEqual([
      ["BTC-PERP", "95000", "online"],
      ["ETH-PERP", "3400.5", "online"],
      ["SOL-PERP", null, "online"],
      ["XRP-PERP", null, "online"],
    ]);
    expect(await adapter.getProduct("BTC-PERP")).toEqual({
      symbol: "BTC-PERP",
      base: "BTC",
      quote: "USDC",
      baseIncrement: "0.0001",
      baseMinSize: "0.0001",
      quoteIncrement: "0.1",
      minMarketFunds: "10",
      price: "95000",
      status: "online",
    });
    await expect(adapter.getProduct("DOGE-PERP")).rejects.toThrow("Unknown symbol DOGE-PERP");

    // half a tick either side when no book is stored; the stored bid/ask otherwise
    expect(await adapter.getTicker("BTC-PERP")).toMatchObject({
      symbol: "BTC-PERP",
      price: "95000",
      bid: "94999.95",
      ask: "95000.05",
      source: "test",
    });
    expect(await adapter.getTicker("ETH-PERP")).toMatchObject({
      price: "3400.5",
      bid: "3400.4",
      ask: "3400.6",
      source: "coinbase",
    });

    await adapter.placeOrder(market("BTC-PERP", "buy", "0.01", { leverage: 2 }));
    // fill 95047.5; notional 950.475; margin 475.2375; fee 0.570285
    expect(await adapter.getBalances()).toEqual([{ currency: "USDC", available: "9524.192215", hold: "475.2375" }]);
    expect(await adapter.testConnection()).toEqual({
      success: true,
      message: "Simulator ready: 9524.19 USDC available",
    });
  });

  test("separate profiles keep separate accounts", async () => {
    const a = sim({ profileId: "paper-a", startingBalance: "500" });
    const b = sim({ profileId: "paper-b" });
    await setPrice(fresh.db, "XRP-PERP", "2.2", "test");
    await a.placeOrder(market("XRP-PERP", "buy", "100", { leverage: 1 }));
    expect(await a.getPositions()).toHaveLength(1);
    expect(await b.getPositions()).toEqual([]);
    expect(await b.getBalances()).toEqual([{ currency: "USDC", available: "10000", hold: "0" }]);
    // 100 x 2.2011 = 220.11 margin, fee 0.132066
    expect(await a.getBalances()).toEqual([{ currency: "USDC", available: "279.757934", hold: "220.11" }]);
  });

  test("a fill chosen as a deadlock victim is run again on MySQL: filled once, nothing doubled", async () => {
    await sim().ensureAccount();
    await setPrice(fresh.db, "BTC-PERP", "95000", "test");
    // The order row is the fill's last insert: the balance and the position were written before it.
    const deadlock = deadlockOnFirstInsert("sim_orders");
    const adapter = new SimulatorAdapter(fresh.db.withPlugin(deadlock.plugin));
    const request = market("BTC-PERP", "buy", "0.01", { leverage: 2 });
    const orders = () => fresh.db.selectFrom("sim_orders").selectAll().execute();
    if (dialect === "mysql") {
      const order = await adapter.placeOrder(request);
      expect(deadlock.injected()).toBe(1);
      expect(order).toMatchObject({ status: "filled", filledQuantity: "0.01", averagePrice: "95047.5" });
      expect((await orders()).map((o) => [o.client_order_id, o.status])).toEqual([[request.clientOrderId, "filled"]]);
      // fill 95047.5; notional 950.475; margin 475.2375; fee 0.570285: debited once
      expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "9524.192215", hold: "475.2375" });
      expect(await adapter.getPositions()).toMatchObject([{ symbol: "BTC-PERP", side: "long", quantity: "0.01" }]);
    } else {
      // SQLite has no deadlock victims: the error is not retried, and the attempt left nothing.
      await expect(adapter.placeOrder(request)).rejects.toThrow(/Deadlock/);
      expect(await orders()).toEqual([]);
      expect(await usdc(adapter)).toEqual({ currency: "USDC", available: "10000", hold: "0" });
      expect(await positionRow("BTC-PERP")).toBeUndefined();
    }
  });

  test("creating the paper account as a deadlock victim is run again on MySQL: one profile, one balance", async () => {
    // Seen under load: processes starting together deadlocked on the profile's INSERT IGNORE.
    const deadlock = deadlockOnFirstInsert("profiles");
    const adapter = new SimulatorAdapter(fresh.db.withPlugin(deadlock.plugin));
    if (dialect === "mysql") {
      const id = await adapter.ensureAccount();
      expect(deadlock.injected()).toBe(1);
      expect(await sim().ensureAccount()).toBe(id);
    } else {
      await expect(adapter.ensureAccount()).rejects.toThrow(/Deadlock/);
      expect(await fresh.db.selectFrom("profiles").selectAll().execute()).toEqual([]);
      await adapter.ensureAccount(); // a failed creation is not cached: the next call creates it
    }
    expect(await fresh.db.selectFrom("profiles").select("profile_id").execute()).toEqual([
      { profile_id: DEFAULT_PAPER_PROFILE_KEY },
    ]);
    expect(await adapter.getBalances()).toEqual([{ currency: "USDC", available: "10000", hold: "0" }]);
  });

  test("four parallel callers trading one account leave the books consistent", async () => {
    const db = fresh.db;
    await setPrice(db, "BTC-PERP", "95000", "test");
    await setPrice(db, "ETH-PERP", "3400", "test");
    const callers = [0, 1, 2, 3].map(() => sim({ startingBalance: "100000" }));
    const outcomes = await Promise.all(
      callers.map(async (adapter, caller) => {
        const results: string[] = [];
        for (let i = 0; i < 12; i++) {
          const symbol = (i + caller) % 2 === 0 ? "BTC-PERP" : "ETH-PERP";
          const side = (i * 7 + caller * 3) % 3 === 0 ? "sell" : "buy";
          const quantity = symbol === "BTC-PERP" ? `0.0${1 + ((i + caller) % 5)}` : `${1 + ((i * caller) % 4)}.5`;
          const reduceOnly = i % 5 === 4;
          const request =
            i % 4 === 3
              ? limit(
                  symbol,
                  side,
                  quantity,
                  symbol === "BTC-PERP" ? (side === "buy" ? "94000" : "96000") : side === "buy" ? "3350" : "3450",
                  { leverage: 5 },
                )
              : market(symbol, side, quantity, { leverage: 1 + ((i + caller) % 10), reduceOnly });
          try {
            results.push((await adapter.placeOrder(request)).status);
          } catch (error) {
            if (!(error instanceof InvalidOrderError)) throw error;
            results.push("refused");
          }
          if (caller === 0 && i % 3 === 2) await adapter.matchRestingOrders("ETH-PERP", i % 2 ? "3340" : "3460");
          if (caller === 1 && i === 6) await setPrice(db, "BTC-PERP", "95500", "test");
        }
        return results;
      }),
    );
    expect(outcomes.flat().filter((s) => s === "filled").length).toBeGreaterThan(20);

    const profiles = await db.selectFrom("profiles").selectAll().execute();
    expect(profiles).toHaveLength(1);
    const orders = await db.selectFrom("sim_orders").selectAll().execute();
    expect(orders).toHaveLength(48);
    const [balance] = await db.selectFrom("balances").selectAll().execute();
    const positions = await db.selectFrom("sim_positions").selectAll().execute();

    const fees = sum(orders.map((o) => o.fee));
    const realized = sum(orders.map((o) => o.realized_pnl));
    // Money is conserved: what the account holds = start - fees + realized P&L.
    expect(D(balance!.available).plus(balance!.hold).toString()).toBe(
      D("100000").minus(fees).plus(realized).toString(),
    );
    // The hold is exactly the positions' margin plus what resting orders hold.
    const openHolds = sum(orders.filter((o) => o.status === "open").map((o) => o.hold_amount));
    expect(D(balance!.hold).toString()).toBe(
      D(sum(positions.map((p) => p.margin)))
        .plus(openHolds)
        .toString(),
    );
    expect(sum(positions.map((p) => p.realized_pnl))).toBe(realized);
    // Each net position equals its filled buys minus its filled sells.
    for (const symbol of ["BTC-PERP", "ETH-PERP"]) {
      const net = orders
        .filter((o) => o.symbol === symbol && o.status === "filled")
        .reduce((acc, o) => (o.side === "buy" ? acc.plus(o.filled_quantity) : acc.minus(o.filled_quantity)), D(0));
      const position = positions.find((p) => p.symbol === symbol);
      const signed = position ? (position.side === "short" ? D(position.quantity).neg() : D(position.quantity)) : D(0);
      expect(signed.toString(), symbol).toBe(net.toString());
    }
  });
});
