// Issue 15, protection that survives the worker, on the fake Coinbase (live) and both dialects:
// a position's stop rests on Coinbase as a stop-limit order, moves with break-even (withdrawn
// before the take-profit close, placed again at the entry for what remains), and, with the
// worker stopped, Coinbase's own stop closes the position: the worker, back, books it from the
// exchange's order and the book equals Coinbase's.
import { describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { listPositionViews } from "#app/services/positions.server.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { openPositionOn, sendSignalExecuted, waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";
import { desiredStop, syncExchangeStops } from "#worker/monitor/exchange-stops.ts";
import { exchangeTicks, processPriceTicks } from "#worker/monitor/price-loop.ts";
import { createRulesMonitor } from "#worker/monitor/rules-monitor.ts";
import { startRunner } from "#worker/runner.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });

test("where the resting stop belongs: the tighter of the stop and the armed trailing exit", () => {
  const controls = { trailingStop: { activation: 0.012, execute: 0.006 } } as never;
  const long = {
    side: "long" as const,
    stopPrice: "94525",
    trailingStopActive: false,
    trailingBestPrice: null,
    advancedControls: controls,
  };
  expect(desiredStop(long)).toBe("94525");
  expect(desiredStop({ ...long, trailingStopActive: true, trailingBestPrice: "96500" })).toBe("95921"); // 96500 x 0.994
  expect(desiredStop({ ...long, stopPrice: "96000", trailingStopActive: true, trailingBestPrice: "96500" })).toBe(
    "96000",
  );
  expect(
    desiredStop({ ...long, side: "short", stopPrice: "95475", trailingStopActive: true, trailingBestPrice: "93000" }),
  ).toBe("93558"); // 93000 x 1.006
  expect(desiredStop({ ...long, stopPrice: null })).toBeNull();
});

describe.each(testDialects())("Resting stops on Coinbase, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, "stops");
  const { app, db } = live;

  const stopOrders = () => msw.fake.state.orders.filter((o) => o.order_configuration.stop_limit_stop_limit_gtc);
  const position = () =>
    db()
      .selectFrom("positions")
      .selectAll()
      .where("symbol", "=", "BTC-PERP")
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();

  test("placed, moved with break-even, and it closes the position while the worker is down", async () => {
    msw.reset();
    await sendSignalExecuted(app, live.secret, {
      action: "buy",
      symbol: "BTC-PERP",
      quantity: "0.05",
      order_type: "market",
    });
    const opened = await position();
    expect(opened.stop_price).not.toBeNull();

    // 1. Placed: a sell stop for the 5 contracts at the stop price, its limit 0.5 % below.
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ placed: 1, moved: 0 });
    expect(stopOrders()).toHaveLength(1);
    const first = stopOrders()[0]!;
    const config = first.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>;
    expect(first).toMatchObject({ side: "SELL", status: "OPEN", product_id: "BIP-20DEC30-CDE" });
    expect(config).toMatchObject({ base_size: "5", stop_direction: "STOP_DIRECTION_STOP_DOWN" });
    expect(D(config.stop_price!).minus(String(opened.stop_price)).abs().lt(5)).toBe(true);
    expect(D(config.limit_price!).lt(config.stop_price!)).toBe(true);
    const view = (await listPositionViews(db())).find((p) => p.symbol === "BTC-PERP")!;
    expect(view.exchangeStop?.orderId).toBe(first.order_id);
    expect(view.exchangeStopNote).toMatch(/protects the position even if the worker stops$/);
    // Nothing moved: nothing sent.
    const creates = msw.fake.requestsTo("/orders", "POST").length;
    expect(await syncExchangeStops(db(), live.exchange)).toEqual({
      placed: 0,
      moved: 0,
      withdrawn: 0,
      filled: 0,
      unresolved: 0,
      refused: 0,
    });
    expect(msw.fake.requestsTo("/orders", "POST")).toHaveLength(creates);

    // 2. TP1: the stop stays while the take-profit close goes out, cut to what will remain (never
    //    a moment without one, never more than the position), then break-even moves it to the
    //    break-even price (entry + fees + offset, decision 046), in place.
    msw.fake.setPrice("BIP-20DEC30-CDE", String(Math.ceil(Number(opened.entry_price) * 1.006)));
    await processPriceTicks(
      db(),
      await exchangeTicks(db(), live.exchange),
      createRulesMonitor(db(), { exchange: live.exchange }),
      { exchangeName: "coinbase" },
    );
    await waitFor("TP1 filled", async () => D(String((await position()).remaining_quantity)).lt("0.05"));
    expect(first.status).toBe("OPEN");
    const afterTp1 = await position();
    expect(
      D((first.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>).base_size!)
        .times("0.01")
        .eq(String(afterTp1.remaining_quantity)),
    ).toBe(true);
    expect(afterTp1.break_even_triggered).toBeTruthy();
    await syncExchangeStops(db(), live.exchange);
    const moved = stopOrders().filter((o) => o.status === "OPEN");
    expect(moved).toHaveLength(1);
    expect(moved[0]!.order_id).toBe(first.order_id); // edited, never cancelled and placed again
    const movedConfig = moved[0]!.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>;
    expect(D(movedConfig.base_size!).times("0.01").eq(String(afterTp1.remaining_quantity))).toBe(true);
    // The resting stop follows the honest break-even stop the position carries: above the entry by the fees and the offset.
    expect(D(movedConfig.stop_price!).minus(String(afterTp1.stop_price)).abs().lt(5)).toBe(true);
    expect(D(String(afterTp1.stop_price)).gt(D(String(afterTp1.entry_price)).times("1.0012"))).toBe(true);

    // 3. The worker stops; the price falls through the stop: Coinbase's stop closes the position.
    await live.runner!.stop();
    live.runner = null;
    msw.fake.setPrice("BIP-20DEC30-CDE", String(Math.floor(Number(afterTp1.entry_price) * 0.99)));
    expect(moved[0]!.status).toBe("FILLED");
    expect(msw.fake.state.positions.get("BIP-20DEC30-CDE")).toBeUndefined();
    // Back: the stop's fill is booked from Coinbase's order; the book is flat like Coinbase.
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ filled: 1 });
    const closed = await position();
    expect(closed.status).toBe("closed");
    const stopTrade = await db()
      .selectFrom("trades")
      .selectAll()
      .where("source", "=", "exchange-stop")
      .executeTakeFirstOrThrow();
    expect(stopTrade).toMatchObject({ status: "executed", side: "sell", order_id: moved[0]!.order_id });
    const log = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Resting stop on%filled for BTC-PERP%")
      .executeTakeFirst();
    expect(log).toBeTruthy();
    expect(
      await db().selectFrom("exchange_stops").select(["position_id", "symbol", "stop_price", "quantity"]).execute(),
    ).toEqual([]);
    live.runner = startRunner({ db: db(), exchange: live.exchange, workerId: "stops-w1", pollMs: 5 });
  });

  test("a stop edited on the position (decision 048): the resting stop is moved in place, never withdrawn first", async () => {
    msw.reset();
    // Its own alert id: the same body as the test before would be a duplicate.
    await sendSignalExecuted(app, live.secret, {
      action: "buy",
      symbol: "BTC-PERP",
      quantity: "0.05",
      order_type: "market",
      id: "edit-048",
    });
    const opened = await openPositionOn(app, "BTC-PERP");
    // The stop keeper's passes by hand from here (the worker's own would race this test's).
    await live.stopWorker();
    await syncExchangeStops(db(), live.exchange);
    const first = await waitFor("stop resting", async () => stopOrders().find((o) => o.status === "OPEN"));
    // 3 % below the entry, on whole dollars: below the entry and the price, a long's stop.
    const wanted = D(String(opened.entry_price)).times("0.97").round(0, 0).toString();
    const response = await app.fetch(`/api/positions/${opened.id}`, {
      method: "PATCH",
      cookie: live.admin,
      json: { stopLoss: wanted },
    });
    expect(response.status).toBe(200);
    expect(D(String((await position()).stop_price)).eq(wanted)).toBe(true);
    // Until the stop keeper's next pass the old stop rests: never a moment without one. Then it is moved, in place.
    expect(
      stopOrders()
        .filter((o) => o.status === "OPEN")
        .map((o) => o.order_id),
    ).toEqual([first.order_id]);
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ placed: 0, moved: 1, withdrawn: 0 });
    const stopOf = (o: typeof first) =>
      (o.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>).stop_price!;
    await waitFor("stop moved", async () =>
      stopOrders().find((o) => o.status === "OPEN" && D(stopOf(o)).minus(wanted).abs().lt(5)),
    );
    const open = stopOrders().filter((o) => o.status === "OPEN");
    expect(open.map((o) => o.order_id)).toEqual([first.order_id]); // edited in place, not cancelled and placed again
    const config = open[0]!.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>;
    expect(D(config.stop_price!).minus(wanted).abs().lt(5)).toBe(true);
    expect(config.base_size).toBe("5");

    // The price rises 0.4 % (TP1 at 0.5 % not reached): the stop moved past the entry, in profit, is
    // taken below the price and the resting stop follows it there, in place (decision 048).
    const entry = D(String(opened.entry_price));
    msw.fake.setPrice("BIP-20DEC30-CDE", entry.times("1.004").round(0, 0).toString());
    await processPriceTicks(
      db(),
      await exchangeTicks(db(), live.exchange),
      createRulesMonitor(db(), { exchange: live.exchange }),
      { exchangeName: "coinbase" },
    );
    const refused = await app.fetch(`/api/positions/${opened.id}`, {
      method: "PATCH",
      cookie: live.admin,
      json: { stopLoss: entry.times("1.006").round(0, 0).toString() },
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatch(/^A long's stop loss must be below the current price/);
    const inProfit = entry.times("1.002").round(0, 0).toString();
    const locked = await app.fetch(`/api/positions/${opened.id}`, {
      method: "PATCH",
      cookie: live.admin,
      json: { stopLoss: inProfit },
    });
    expect(locked.status).toBe(200);
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ placed: 0, moved: 1, withdrawn: 0 });
    const resting = stopOrders().filter((o) => o.status === "OPEN");
    expect(resting.map((o) => o.order_id)).toEqual([first.order_id]);
    const lockedConfig = resting[0]!.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>;
    expect(D(lockedConfig.stop_price!).minus(inProfit).abs().lt(5)).toBe(true);
    expect(D(lockedConfig.stop_price!).gt(entry)).toBe(true); // past the entry: it locks in a profit
    expect(lockedConfig.stop_direction).toBe("STOP_DIRECTION_STOP_DOWN");
    await live.startWorker("stops-w2");
  });
});
