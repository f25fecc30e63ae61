// Issue 15, races and unknown outcomes, on the fake Coinbase (live) and both dialects:
// - a stop-loss close and a TradingView sell for the same symbol, claimed together by one
//   worker, reach Coinbase one after the other (the order slot) and the app's book ends equal
//   to Coinbase's position, whichever went first;
// - two workers, many orders on one symbol: never two in flight at once.
import { describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { TemporaryError } from "#app/core/exchange/errors.ts";
import { acquireOrderSlot, orderSlotHolder, releaseOrderSlot, tryOrderSlot } from "#db/queries/order-slots.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { jobsIdle, sendSignal, sendSignalExecuted, waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";
import { settleUnknownTrades, syncExchangeOrders } from "#worker/monitor/order-sync.ts";
import { exchangeTicks, processPriceTicks } from "#worker/monitor/price-loop.ts";
import { createRulesMonitor } from "#worker/monitor/rules-monitor.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });

describe.each(testDialects())("One order in flight per symbol, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, "race", { worker: false });
  const { app, db } = live;
  const stop = () => live.stopWorker();
  const start = () => live.startWorker("race-w1", { concurrency: 4 });
  const settled = () => jobsIdle(app);

  /** The app's open position in contracts of 0.01 BTC (+ long, - short) against Coinbase's. */
  async function books() {
    const open = await db()
      .selectFrom("positions")
      .select(["side", "remaining_quantity"])
      .where("symbol", "=", "BTC-PERP")
      .where("status", "=", "open")
      .execute();
    const app = open.reduce(
      (acc, p) => acc.plus(D(String(p.remaining_quantity)).times(p.side === "long" ? 1 : -1)),
      D(0),
    );
    const onCoinbase = msw.fake.state.positions.get("BIP-20DEC30-CDE") as
      | { contracts?: { toString(): string } }
      | undefined;
    return {
      app: app.div("0.01").toString(),
      coinbase: onCoinbase?.contracts ? D(onCoinbase.contracts.toString()).toString() : "0",
      rows: open.length,
    };
  }

  test("the slot: one holder at a time, renewable by its holder, free again after its lease", async () => {
    const now = Date.now();
    expect(await tryOrderSlot(db(), "x", "ETH-PERP", "job:1", now, 1000)).toBe(true);
    expect(await tryOrderSlot(db(), "x", "ETH-PERP", "job:2", now, 1000)).toBe(false);
    expect(await tryOrderSlot(db(), "x", "ETH-PERP", "job:1", now + 10, 1000)).toBe(true);
    expect(await tryOrderSlot(db(), "x", "SOL-PERP", "job:2", now, 1000)).toBe(true); // another symbol
    expect(await orderSlotHolder(db(), "x", "ETH-PERP", now + 500)).toBe("job:1");
    expect(await tryOrderSlot(db(), "x", "ETH-PERP", "job:2", now + 2000, 1000)).toBe(true); // job:1's lease ran out
    // Waiting too long for a held slot: a temporary failure (the job retries, nothing was sent).
    // (Holders without a job here: a job's slot follows its job, tested in live-faults.test.ts.)
    expect(await tryOrderSlot(db(), "x", "XRP-PERP", "order:3")).toBe(true);
    const waited = acquireOrderSlot(db(), "x", "XRP-PERP", "order:4", { waitMs: 60, pollMs: 10 });
    await expect(waited).rejects.toBeInstanceOf(TemporaryError);
    await expect(waited).rejects.toThrow("Another order for XRP-PERP is still in flight on x: this one waits its turn");
    await releaseOrderSlot(db(), "x", "XRP-PERP", "order:3");
    await acquireOrderSlot(db(), "x", "XRP-PERP", "order:4", { waitMs: 60, pollMs: 10 });
    expect(await orderSlotHolder(db(), "x", "XRP-PERP")).toBe("order:4");
  });

  test("a stop-loss close and a TradingView sell racing on BTC-PERP: the book ends equal to Coinbase's", async () => {
    msw.reset();
    await start();
    await sendSignalExecuted(app, live.secret, {
      action: "buy",
      symbol: "BTC-PERP",
      quantity: "0.02",
      order_type: "market",
    });
    expect(await books()).toEqual({ app: "2", coinbase: "2", rows: 1 });
    const position = await db()
      .selectFrom("positions")
      .select(["stop_price"])
      .where("status", "=", "open")
      .executeTakeFirstOrThrow();

    // Both jobs are queued while no worker runs, then claimed together.
    await stop();
    msw.fake.setPrice("BIP-20DEC30-CDE", String(Math.floor(Number(position.stop_price) * 0.99)));
    await processPriceTicks(
      db(),
      await exchangeTicks(db(), live.exchange),
      createRulesMonitor(db(), { exchange: live.exchange }),
      { exchangeName: "coinbase" },
    );
    expect(
      await db()
        .selectFrom("jobs")
        .select("id")
        .where("task", "=", "close-position")
        .where("status", "=", "created")
        .execute(),
    ).toHaveLength(1);
    const sell = (await (
      await sendSignal(app, live.secret, { action: "sell", symbol: "BTC-PERP", quantity: "0.02", order_type: "market" })
    ).json()) as { signalId: string };
    expect(sell.signalId).toBeTruthy();
    // Coinbase answers the close slowly (it is done at once): without the slot the sell would
    // go out and be booked while the close is still unanswered, and the two book in reverse.
    msw.fake.fail({ method: "POST", path: "/orders/close_position", delayMs: 400 });
    await start();
    await settled();

    const end = await books();
    expect(end.app).toBe(end.coinbase);
    expect(end.rows).toBeLessThanOrEqual(1);
    // Each order went out only after the one before it was booked: never two at once.
    const orders = msw.fake.requestsTo(/^\/orders(\/close_position)?$/, "POST");
    expect(orders.length).toBeGreaterThanOrEqual(2);
    const trades = await db()
      .selectFrom("trades")
      .select(["status", "reduce_only", "error_message"])
      .orderBy("created_at")
      .execute();
    // Every trade is settled: executed, or a close cancelled because nothing was left to close.
    for (const t of trades) expect(["executed", "cancelled"]).toContain(t.status);
    const executedWithoutEffect = await db()
      .selectFrom("trades")
      .select("id")
      .where("status", "=", "executed")
      .where("position_id", "is", null)
      .execute();
    expect(executedWithoutEffect).toEqual([]);
    expect(await orderSlotHolder(db(), "coinbase", "BTC-PERP")).toBeNull();
  });

  /** Sends a signal with the worker stopped and its job limited to one attempt. */
  async function oneAttemptSignal(body: Record<string, unknown>) {
    await stop();
    const { signalId } = (await (await sendSignal(app, live.secret, body)).json()) as { signalId: string };
    await db().updateTable("jobs").set({ max_attempts: 1 }).where("status", "=", "created").execute();
    return signalId;
  }
  // The order's own trade (its partial fills are trades of the same signal, `<id>#p<n>`).
  const tradeOf = (signalId: string) =>
    db()
      .selectFrom("trades")
      .selectAll()
      .where("signal_id", "=", signalId)
      .where("client_order_id", "not like", "%#p%")
      .executeTakeFirst();

  test("an answer lost after Coinbase took the order: unknown (not failed), then booked once Coinbase answers", async () => {
    msw.reset();
    const signalId = await oneAttemptSignal({
      action: "buy",
      symbol: "SOL-PERP",
      quantity: "10",
      order_type: "market",
    });
    msw.fake.fail({ method: "POST", path: "/orders", status: 503, afterProcessing: true });
    msw.fake.fail({ method: "GET", path: /^\/orders\/historical/, status: 503, times: 1000 });
    await start();
    await waitFor("unknown", async () => (await tradeOf(signalId))?.status === "unknown");
    const trade = (await tradeOf(signalId))!;
    expect(trade.error_message).toMatch(/^Outcome unknown: gave up after 1 attempts/);
    expect(trade.error_message).toMatch(/the worker keeps asking for it by its client order id$/);
    expect(msw.fake.state.positions.get("SLP-20DEC30-CDE")).toBeTruthy(); // Coinbase did take it
    const log = await db()
      .selectFrom("activity_logs")
      .select(["level", "message"])
      .where("message", "like", "%Outcome unknown%")
      .executeTakeFirst();
    expect(log?.level).toBe("error");
    expect(
      (await db().selectFrom("signals").select("status").where("id", "=", signalId).executeTakeFirst())?.status,
    ).toBe("queued");
    expect(await orderSlotHolder(db(), "coinbase", "SOL-PERP")).toBeNull(); // the job is over: the slot is free
    // Still no answer: it stays unknown.
    expect(await settleUnknownTrades(db(), live.exchange)).toBe(0);

    msw.fake.state.faults.length = 0;
    expect(await settleUnknownTrades(db(), live.exchange)).toBe(1);
    const booked = (await tradeOf(signalId))!;
    expect(booked.status).toBe("executed");
    expect(D(String(booked.executed_quantity)).eq(10)).toBe(true);
    expect(
      (await db().selectFrom("signals").select("status").where("id", "=", signalId).executeTakeFirst())?.status,
    ).toBe("executed");
    const sol = await db()
      .selectFrom("positions")
      .select(["side", "remaining_quantity"])
      .where("symbol", "=", "SOL-PERP")
      .where("status", "=", "open")
      .executeTakeFirst();
    expect(sol).toMatchObject({ side: "long" });
    expect(D(String(sol!.remaining_quantity)).eq(10)).toBe(true);
  });

  test("an order Coinbase never got: unknown while Coinbase cannot be asked, then failed with 'nothing was sent'", async () => {
    msw.reset();
    const signalId = await oneAttemptSignal({
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "0.1",
      order_type: "market",
    });
    msw.fake.fail({ method: "POST", path: "/orders", status: 503 });
    msw.fake.fail({ method: "GET", path: /^\/orders\/historical/, status: 503, times: 1000 });
    await start();
    await waitFor("unknown", async () => (await tradeOf(signalId))?.status === "unknown");
    msw.fake.state.faults.length = 0;
    expect(await settleUnknownTrades(db(), live.exchange)).toBe(1);
    const trade = (await tradeOf(signalId))!;
    expect(trade.status).toBe("failed");
    expect(trade.error_message).toMatch(/coinbase has no order \S+: nothing was sent$/);
    expect(msw.fake.state.positions.get("ETP-20DEC30-CDE")).toBeUndefined();
  });

  test("a resting GTC limit filled in parts: each part booked (and protected) as it comes, the rest when it ends", async () => {
    msw.reset();
    await start();
    const { signalId } = (await (
      await sendSignal(app, live.secret, {
        action: "sell",
        symbol: "XRP-PERP",
        quantity: "2500",
        order_type: "limit",
        price: "2.5",
      })
    ).json()) as { signalId: string };
    await waitFor("resting", async () => (await tradeOf(signalId))?.order_id);
    const order = msw.fake.state.orders.find(
      (o) => o.client_order_id === msw.fake.state.orders.at(-1)!.client_order_id,
    )!;
    expect(order.status).toBe("OPEN");
    const xrp = () =>
      db()
        .selectFrom("positions")
        .select(["side", "remaining_quantity", "stop_price", "advanced_controls"])
        .where("symbol", "=", "XRP-PERP")
        .where("status", "=", "open")
        .executeTakeFirst();

    msw.fake.fillOrderPart(order.order_id, "2", "2.5"); // 2 of 5 contracts of 500 XRP
    expect(await syncExchangeOrders(db(), live.exchange)).toBe(1);
    let position = await xrp();
    expect(position).toMatchObject({ side: "short" });
    expect(D(String(position!.remaining_quantity)).eq(1000)).toBe(true);
    expect(position!.stop_price).not.toBeNull(); // protected from the first part
    expect((await tradeOf(signalId))!.status).toBe("pending");
    await syncExchangeOrders(db(), live.exchange); // nothing new: nothing booked twice
    expect(D(String((await xrp())!.remaining_quantity)).eq(1000)).toBe(true);

    msw.fake.fillOrderPart(order.order_id, "1", "2.4");
    await syncExchangeOrders(db(), live.exchange);
    expect(D(String((await xrp())!.remaining_quantity)).eq(1500)).toBe(true);

    msw.fake.fillOrder(order.order_id, "2.45"); // the last 2 contracts
    await syncExchangeOrders(db(), live.exchange);
    position = await xrp();
    expect(D(String(position!.remaining_quantity)).eq(2500)).toBe(true);
    const parent = (await tradeOf(signalId))!;
    expect(parent.status).toBe("executed");
    expect(D(String(parent.executed_quantity)).eq(1000)).toBe(true);
    const parts = await db()
      .selectFrom("trades")
      .select(["client_order_id", "executed_quantity", "executed_price", "status", "order_id"])
      .where("client_order_id", "like", `${parent.client_order_id}#p%`)
      .orderBy("client_order_id")
      .execute();
    expect(
      parts.map((p) => [
        p.client_order_id.slice(-3),
        D(String(p.executed_quantity)).toString(),
        D(String(p.executed_price)).toString(),
        p.status,
        p.order_id,
      ]),
    ).toEqual([
      ["#p1", "1000", "2.5", "executed", order.order_id],
      ["#p2", "500", "2.4", "executed", order.order_id],
    ]);
    expect(D(String(parent.executed_price)).toString()).toBe("2.45");
    // The book equals Coinbase's: short 5 contracts.
    expect(D(msw.fake.state.positions.get("XPP-20DEC30-CDE")!.contracts.toString()).eq(-5)).toBe(true);
  });
});
