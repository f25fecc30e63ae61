// Issue 21: live trading that survives a faulty exchange, on the stateful fake Coinbase and
// both databases. One test per defect; each ends with the check a trader would make: the
// exchange's position equals the app's, at most one resting stop per position (none when
// flat), and the web process still answers.
import Big from "big.js";
import { describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { claimJobs, enqueueJob, failJob } from "#db/queries/jobs.ts";
import { SlotBusyError, acquireOrderSlot, orderSlotHolder, tryOrderSlot } from "#db/queries/order-slots.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { jobsIdle, sendSignalExecuted, sendSignalId, signalTrade, waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";
import { executeTrade, settleUnknownTrade } from "#worker/execution.ts";
import {
  PLACING_LOOKUP_GRACE_MS,
  STOP_ALARM_AFTER,
  syncExchangeStops,
  withdrawStopFor,
} from "#worker/monitor/exchange-stops.ts";
import { exchangeTicks, processPriceTicks } from "#worker/monitor/price-loop.ts";
import { createRulesMonitor } from "#worker/monitor/rules-monitor.ts";
import { getTradeByClientOrderId } from "#db/queries/trades.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });

const PRODUCT = {
  "BTC-PERP": ["BIP-20DEC30-CDE", "0.01"],
  "ETH-PERP": ["ETP-20DEC30-CDE", "0.1"],
  "SOL-PERP": ["SLP-20DEC30-CDE", "5"],
} as const;
type Symbol = keyof typeof PRODUCT;

describe.each(testDialects())("Live faults, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, `faults_${dialect}`, { worker: false });
  const { app, db } = live;
  const stopWorker = () => live.stopWorker();
  const startWorker = () => live.startWorker("faults-w1");

  let alerts = 0;
  /** A fresh fake Coinbase and a flat app (each test starts flat on both sides). */
  async function fresh(options: Parameters<typeof msw.reset>[0] = { cdpKeys: [key] }) {
    await stopWorker();
    msw.reset(options);
    await db()
      .updateTable("positions")
      .set({ status: "closed", remaining_quantity: "0" })
      .where("status", "=", "open")
      .execute();
    await db().deleteFrom("exchange_stops").execute();
    await db().updateTable("jobs").set({ status: "cancelled" }).where("status", "in", ["created", "retry"]).execute();
  }

  const marketAlert = (action: "buy" | "sell", symbol: Symbol, quantity: string, alertId: string) => ({
    action,
    symbol,
    quantity,
    order_type: "market",
    alert_id: alertId,
  });
  /** A market order sent as an alert (`<prefix>-<n>` its alert id), once the running worker has executed it. */
  const marketOrder = (action: "buy" | "sell", symbol: Symbol, quantity: string, prefix: string, timeoutMs?: number) =>
    sendSignalExecuted(app, live.secret, marketAlert(action, symbol, quantity, `${prefix}-${++alerts}`), timeoutMs);
  /** A position's remaining quantity, as a plain decimal string. */
  const remaining = async (id: string) =>
    D(
      String(
        (await db().selectFrom("positions").select("remaining_quantity").where("id", "=", id).executeTakeFirstOrThrow())
          .remaining_quantity,
      ),
    ).toString();

  /** A manual close of all of the position queued as a job, run by the worker; answers the job's trade. */
  async function closeAllByJob(positionId: string, jobKey?: string) {
    const job = await enqueueJob(db(), {
      task: "close-position",
      payload: { positionId, quantity: "all", reason: "Close", source: "manual" },
      ...(jobKey ? { jobKey } : {}),
    });
    await startWorker();
    await jobsIdle(app);
    await stopWorker();
    return db().selectFrom("trades").selectAll().where("job_id", "=", job.id).executeTakeFirstOrThrow();
  }

  /** Opens a long through a webhook (the worker runs it), then stops the worker. */
  async function openLong(symbol: Symbol, quantity: string) {
    await startWorker();
    await marketOrder("buy", symbol, quantity, "open");
    await stopWorker(); // drains its running jobs
    return db()
      .selectFrom("positions")
      .selectAll()
      .where("symbol", "=", symbol)
      .where("status", "=", "open")
      .executeTakeFirstOrThrow();
  }

  const stopOrders = (symbol: Symbol, status = "OPEN") =>
    msw.fake.state.orders.filter(
      (o) =>
        o.product_id === PRODUCT[symbol][0] && o.order_configuration.stop_limit_stop_limit_gtc && o.status === status,
    );
  /** From a fresh start: a long on `symbol` with its stop placed on Coinbase; answers the position and that stop. */
  async function longWithStop(symbol: Symbol, quantity: string, options?: Parameters<typeof fresh>[0]) {
    await fresh(options);
    const position = await openLong(symbol, quantity);
    await syncExchangeStops(db(), live.exchange);
    const [stop] = stopOrders(symbol);
    return { position, stop };
  }
  /** The app's record of the stop it keeps on Coinbase for a position. */
  const stopRecord = (positionId: string) =>
    db().selectFrom("exchange_stops").selectAll().where("position_id", "=", positionId).executeTakeFirstOrThrow();
  /** Activity log lines (level, message) whose message is like `pattern`. */
  const logsLike = (pattern: string) =>
    db().selectFrom("activity_logs").select(["level", "message"]).where("message", "like", pattern).execute();
  /** Break-even moves the position's stop to just under its entry; the stop's record is aged so the next pass acts on it. */
  async function moveStopToBreakEven(position: { id: string; entry_price: string | number }) {
    const moved = D(String(position.entry_price)).times("0.998").round(0).toString();
    await db().updateTable("positions").set({ stop_price: moved }).where("id", "=", position.id).execute();
    await db()
      .updateTable("exchange_stops")
      .set({ updated_at: Date.now() - 60_000 })
      .execute();
    return moved;
  }
  const orderPosts = () => msw.fake.requestsTo("/orders", "POST").length;

  /** The end of every test: the exchange equals the app, one resting stop per open position at most, none when flat, the web answers. */
  async function expectInStep(symbol: Symbol) {
    const open = await db()
      .selectFrom("positions")
      .select(["side", "remaining_quantity"])
      .where("symbol", "=", symbol)
      .where("status", "=", "open")
      .execute();
    expect(open.length).toBeLessThanOrEqual(1);
    const appContracts = open.reduce(
      (acc, p) =>
        acc.plus(
          D(String(p.remaining_quantity))
            .div(PRODUCT[symbol][1])
            .times(p.side === "long" ? 1 : -1),
        ),
      D(0),
    );
    const onExchange = msw.fake.state.positions.get(PRODUCT[symbol][0]);
    expect(appContracts.toString()).toBe(onExchange ? D(onExchange.contracts.toString()).toString() : "0");
    expect(stopOrders(symbol).length).toBeLessThanOrEqual(open.length);
    const health = await app.fetch("/api/health");
    expect(health.status).toBeLessThan(500);
  }

  test("defect 1: a stop placement Coinbase took but answered 500 (or never answered) is looked up, never placed twice; moves are edits", async () => {
    await fresh();
    const position = await openLong("BTC-PERP", "0.02");
    const posts = orderPosts();

    // 500 after Coinbase accepted the stop: unresolved, the intent kept, nothing else placed.
    msw.fake.fail({ method: "POST", path: "/orders", status: 500, afterProcessing: true });
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ placed: 0, unresolved: 1 });
    expect(stopOrders("BTC-PERP")).toHaveLength(1);
    const record = await stopRecord(position.id);
    expect(record).toMatchObject({ status: "placing", order_id: "" });
    expect(record.client_order_id).toBe(stopOrders("BTC-PERP")[0]!.client_order_id);
    // The next passes look it up by its client order id: found, kept, none beside it.
    for (let pass = 0; pass < 3; pass++) await syncExchangeStops(db(), live.exchange);
    expect(orderPosts()).toBe(posts + 1);
    expect(stopOrders("BTC-PERP")).toHaveLength(1);
    expect(await stopRecord(position.id)).toMatchObject({
      status: "resting",
      order_id: stopOrders("BTC-PERP")[0]!.order_id,
    });
    const found = await logsLike("Stop for BTC-PERP found resting on%");
    expect(found).toHaveLength(1);

    // Break-even moves the stop: edited in place (same order, no new order), never a window without one.
    const restingId = stopOrders("BTC-PERP")[0]!.order_id;
    const moved = await moveStopToBreakEven(position);
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ moved: 1 });
    expect(stopOrders("BTC-PERP").map((o) => o.order_id)).toEqual([restingId]);
    expect(orderPosts()).toBe(posts + 1);
    expect(
      (stopOrders("BTC-PERP")[0]!.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>).stop_price,
    ).toBe(moved);

    // Where Coinbase will not edit, the move cancels then places; its placement dropped (no answer): still one stop.
    msw.reset({ cdpKeys: [key], editable: false });
    // (a fresh fake: the app's stop record points at an order this fake never had, which is forgotten)
    await syncExchangeStops(db(), live.exchange);
    expect(stopOrders("BTC-PERP")).toHaveLength(0); // this fake has no position: no stop, none placed
    msw.fake.state.positions.set(PRODUCT["BTC-PERP"][0], {
      contracts: new Big(2),
      entry: new Big(String(position.entry_price)),
    });
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ placed: 1 });
    await db()
      .updateTable("positions")
      .set({ stop_price: D(moved).times("1.001").round(0).toString() })
      .where("id", "=", position.id)
      .execute();
    await db()
      .updateTable("exchange_stops")
      .set({ updated_at: Date.now() - 60_000 })
      .execute();
    msw.fake.fail({ method: "POST", path: "/orders", hang: true, afterProcessing: true });
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ unresolved: 1 });
    expect(stopOrders("BTC-PERP")).toHaveLength(1); // the old one cancelled, the new one on Coinbase
    for (let pass = 0; pass < 3; pass++) await syncExchangeStops(db(), live.exchange);
    expect(stopOrders("BTC-PERP")).toHaveLength(1);

    // The price falls through: one stop fills, the book follows, nothing doubled.
    msw.fake.setPrice(PRODUCT["BTC-PERP"][0], String(Math.floor(Number(moved) * 0.98)));
    expect(stopOrders("BTC-PERP", "FILLED")).toHaveLength(1);
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ filled: 1 });
    expect(msw.fake.state.positions.get(PRODUCT["BTC-PERP"][0])).toBeUndefined();
    await expectInStep("BTC-PERP");
  });

  test("defect 1: an unanswered placement Coinbase never took is forgotten after the grace, then placed once", async () => {
    await fresh();
    const position = await openLong("ETH-PERP", "0.2");
    msw.fake.fail({ method: "POST", path: "/orders", status: 502 });
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ unresolved: 1 });
    expect(stopOrders("ETH-PERP")).toHaveLength(0);
    // Within the grace nothing is concluded (a listing may lag); after it, placed anew.
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ unresolved: 1, placed: 0 });
    const later = Date.now() + PLACING_LOOKUP_GRACE_MS + 1;
    expect(await syncExchangeStops(db(), live.exchange, later)).toMatchObject({ placed: 1 });
    expect(stopOrders("ETH-PERP")).toHaveLength(1);
    expect(await stopRecord(position.id)).toMatchObject({ status: "resting" });
    await expectInStep("ETH-PERP");
  });

  test("defect 8: the stop never sells more than the exchange holds, and none rests when the exchange is flat", async () => {
    await fresh();
    const position = await openLong("BTC-PERP", "0.02");
    // Coinbase holds 1 contract, the app 2 (a drift): the stop sells 1.
    msw.fake.state.positions.set(PRODUCT["BTC-PERP"][0], {
      contracts: new Big(1),
      entry: new Big(String(position.entry_price)),
    });
    await syncExchangeStops(db(), live.exchange);
    expect(
      stopOrders("BTC-PERP").map(
        (o) => (o.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>).base_size,
      ),
    ).toEqual(["1"]);
    // Coinbase flat: the stop is withdrawn and none placed (it would open a short).
    msw.fake.state.positions.delete(PRODUCT["BTC-PERP"][0]);
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ withdrawn: 1, placed: 0 });
    expect(stopOrders("BTC-PERP")).toHaveLength(0);
    await syncExchangeStops(db(), live.exchange);
    expect(stopOrders("BTC-PERP")).toHaveLength(0);
    // A close of the app's 2 contracts sends nothing: Coinbase holds none.
    const close = await closeAllByJob(position.id);
    expect(close.status).toBe("cancelled");
    expect(close.error_message).toMatch(/^Nothing to close on coinbase: it holds no long BTC-PERP position/);
    expect(msw.fake.state.positions.get(PRODUCT["BTC-PERP"][0])).toBeUndefined(); // no short opened
    // Coinbase back at 1 contract: a close of everything sells 1.
    msw.fake.state.positions.set(PRODUCT["BTC-PERP"][0], {
      contracts: new Big(1),
      entry: new Big(String(position.entry_price)),
    });
    const second = await closeAllByJob(position.id, "close-again");
    expect(second.status).toBe("executed");
    expect(D(String(second.executed_quantity)).eq("0.01")).toBe(true);
    expect(msw.fake.state.positions.get(PRODUCT["BTC-PERP"][0])).toBeUndefined();
    expect(stopOrders("BTC-PERP")).toHaveLength(0);
    // The app still holds 0.01 that Coinbase does not: the drift alarm's to resolve (Adopt or Close), never a stop that opens a short.
    await syncExchangeStops(db(), live.exchange);
    expect(stopOrders("BTC-PERP")).toHaveLength(0);
    await db()
      .updateTable("positions")
      .set({ status: "closed", remaining_quantity: "0" })
      .where("id", "=", position.id)
      .execute();
    await expectInStep("BTC-PERP");
  });

  test("defect 9: a stop Coinbase answers 'not found' at cancel is looked up, and its fill booked", async () => {
    const { position, stop } = await longWithStop("SOL-PERP", "10");
    expect(stop).toBeTruthy();
    msw.fake.setPrice(PRODUCT["SOL-PERP"][0], String(Math.floor(Number(position.stop_price) * 0.98 * 100) / 100));
    expect(stop!.status).toBe("FILLED");
    msw.fake.fail({
      method: "POST",
      path: "/orders/batch_cancel",
      status: 200,
      body: { results: [{ success: false, failure_reason: "UNKNOWN_CANCEL_ORDER", order_id: stop!.order_id }] },
    });
    msw.fake.fail({
      method: "GET",
      path: `/orders/historical/${stop!.order_id}`,
      status: 404,
      body: { error: "NOT_FOUND", message: "order with this orderID was not found" },
    });
    // A TradingView order on the symbol withdraws the stop first (under the slot): its fill is booked, not lost.
    await withdrawStopFor(db(), live.exchange, "SOL-PERP");
    const booked = await getTradeByClientOrderId(db(), stop!.client_order_id);
    expect(booked).toMatchObject({ status: "executed", source: "exchange-stop", side: "sell" });
    expect(
      (await db().selectFrom("positions").select("status").where("id", "=", position.id).executeTakeFirstOrThrow())
        .status,
    ).toBe("closed");
    await expectInStep("SOL-PERP");
  });

  test("defect 10: a refused stop backs off and raises one alarm, not a warning every 2 s", async () => {
    await fresh();
    const position = await openLong("ETH-PERP", "0.3");
    msw.fake.fail({
      method: "POST",
      path: "/orders",
      status: 400,
      body: { error: "INVALID_ARGUMENT", message: "stop price rejected" },
      times: 100,
    });
    let now = Date.now();
    let posts = orderPosts();
    expect(await syncExchangeStops(db(), live.exchange, now)).toMatchObject({ refused: 1 });
    for (let pass = 0; pass < 5; pass++) await syncExchangeStops(db(), live.exchange, now + pass * 300); // within the back-off: nothing asked
    expect(orderPosts()).toBe(posts + 1);
    for (let refusal = 2; refusal <= STOP_ALARM_AFTER + 2; refusal++) {
      now += 400_000; // past any back-off
      expect(await syncExchangeStops(db(), live.exchange, now)).toMatchObject({ refused: 1 });
    }
    const record = await stopRecord(position.id);
    expect(record).toMatchObject({ status: "refused", failures: STOP_ALARM_AFTER + 2 });
    expect(Number(record.retry_at)).toBe(now + 300_000);
    const logs = await logsLike("%refused the resting stop for ETH-PERP%");
    expect(logs.map((l) => l.level)).toEqual(["warning", "error"]);
    // Coinbase takes it again: it rests, and the count starts over.
    msw.fake.state.faults.length = 0;
    posts = orderPosts();
    expect(await syncExchangeStops(db(), live.exchange, now + 300_001)).toMatchObject({ placed: 1 });
    expect(orderPosts()).toBe(posts + 1);
    expect(await stopRecord(position.id)).toMatchObject({ status: "resting", failures: 0 });
    await expectInStep("ETH-PERP");
  });

  test("defect 10: an unknown order older than the newest 500 is found by its client id, not declared 'nothing was sent'", async () => {
    await fresh();
    await stopWorker();
    const signalId = await sendSignalId(app, live.secret, marketAlert("buy", "ETH-PERP", "0.1", "old-unknown"));
    await db().updateTable("jobs").set({ max_attempts: 1 }).where("status", "=", "created").execute();
    msw.fake.fail({ method: "POST", path: "/orders", status: 503, afterProcessing: true });
    msw.fake.fail({ method: "GET", path: /^\/orders\/historical/, status: 503, times: 1000 });
    await startWorker();
    const tradeOf = () =>
      db().selectFrom("trades").selectAll().where("signal_id", "=", signalId).executeTakeFirstOrThrow();
    await signalTrade(app, signalId, "unknown");
    await stopWorker();
    // 600 orders of other sessions come after it: it is not among the newest 500.
    const template = msw.fake.state.orders.at(-1)!;
    const later = new Date(Date.now() + 1000).toISOString();
    for (let i = 0; i < 600; i++)
      msw.fake.state.orders.push({
        ...template,
        order_id: `other-${i}`,
        client_order_id: `other-${i}`,
        created_time: later,
      });
    msw.fake.state.faults.length = 0;
    const trade = await tradeOf();
    const status = await settleUnknownTrade(
      db(),
      live.exchange,
      {
        ...trade,
        id: trade.id,
        status: "unknown",
        clientOrderId: trade.client_order_id,
        createdAt: new Date(Number(trade.created_at)).toISOString(),
      } as never,
      "asked again",
    );
    expect(status).toBe("executed");
    expect((await tradeOf()).status).toBe("executed");
    await expectInStep("ETH-PERP");
  });

  test("an order Coinbase took but cannot be asked about is asked again every few seconds, not after minutes of back-off", async () => {
    await fresh();
    await stopWorker();
    const signalId = await sendSignalId(app, live.secret, marketAlert("buy", "SOL-PERP", "10", "asked-soon"));
    msw.fake.fail({ method: "POST", path: "/orders", status: 500, afterProcessing: true });
    // Coinbase cannot be asked for a while: with the plain back-off the 4th retry waits 8 s, the 6th 32 s.
    msw.fake.fail({ method: "GET", path: "/orders/historical/batch", status: 503, times: 100_000 });
    await startWorker();
    const job = await waitFor(
      "four attempts",
      async () => {
        const row = await db()
          .selectFrom("jobs")
          .select(["id", "attempts", "status", "run_at", "updated_at"])
          .where("signal_id", "=", signalId)
          .executeTakeFirst();
        return row && Number(row.attempts) >= 4 && row.status === "retry" ? row : null;
      },
      30_000,
      20,
    );
    expect(Number(job.run_at) - Number(job.updated_at)).toBeLessThanOrEqual(3_000);
    // Coinbase answers again: booked within one retry.
    msw.fake.state.faults.length = 0;
    const answered = Date.now();
    await signalTrade(app, signalId); // booked
    expect(Date.now() - answered).toBeLessThan(4_000);
    await stopWorker();
    await syncExchangeStops(db(), live.exchange);
    expect(stopOrders("SOL-PERP")).toHaveLength(1); // protected as soon as it is booked
    await expectInStep("SOL-PERP");
  }, 40_000);

  test("defect 2: an order slot stays with a job whose order is unanswered, through its retries, past any lease", async () => {
    const job = await enqueueJob(db(), {
      task: "close-position",
      payload: { positionId: "p", quantity: "all", reason: "test", source: "manual" },
      jobKey: `slot-${Date.now()}`,
    });
    await db().updateTable("jobs").set({ status: "retry" }).where("id", "=", job.id).execute();
    const now = Date.now();
    expect(await tryOrderSlot(db(), "coinbase", "XRP-PERP", `job:${job.id}`, now, 1000, job.id)).toBe(true);
    // Long past the lease: the job still lives (its retry will look the order up), so no other order goes out.
    expect(await tryOrderSlot(db(), "coinbase", "XRP-PERP", "job:999999", now + 3_600_000, 1000, 999999)).toBe(false);
    expect(await tryOrderSlot(db(), "coinbase", "XRP-PERP", "stop:x", now + 3_600_000)).toBe(false);
    expect(await orderSlotHolder(db(), "coinbase", "XRP-PERP", now + 3_600_000)).toBe(`job:${job.id}`);
    // Its job ends (however it ends): the slot is free even if nobody gave it back.
    await db().updateTable("jobs").set({ status: "failed" }).where("id", "=", job.id).execute();
    expect(await orderSlotHolder(db(), "coinbase", "XRP-PERP", now + 3_600_000)).toBeNull();
    expect(await tryOrderSlot(db(), "coinbase", "XRP-PERP", "stop:x", now + 3_600_000)).toBe(true);
    // A holder without a job (the stop keeper) keeps it only for its lease, renewed while it works.
    expect(await tryOrderSlot(db(), "coinbase", "XRP-PERP", "job:5", now + 3_600_000 + 5_000)).toBe(false);
    expect(await tryOrderSlot(db(), "coinbase", "XRP-PERP", "job:5", now + 3_600_000 + 11_000)).toBe(true);
  });

  test("the chaos run's starvation: a job holding its symbol's slot is claimed before the jobs waiting for it, which go back at once without being charged an attempt", async () => {
    await fresh();
    const now = Date.now();
    const waiting: number[] = [];
    for (let i = 0; i < 5; i++)
      waiting.push(
        (
          await enqueueJob(db(), {
            task: "close-position",
            payload: { positionId: `w${i}`, quantity: "all", reason: "wait", source: "manual" },
            jobKey: `wait-${now}-${i}`,
            runAt: now - 60_000,
          })
        ).id,
      );
    const holder = await enqueueJob(db(), {
      task: "close-position",
      payload: { positionId: "h", quantity: "all", reason: "hold", source: "manual" },
      jobKey: `hold-${now}`,
      runAt: now,
    });
    await db().updateTable("jobs").set({ status: "retry", attempts: 1 }).where("id", "=", holder.id).execute();
    expect(await tryOrderSlot(db(), "starve", "XRP-PERP", `job:${holder.id}`, now, 10_000, holder.id)).toBe(true);
    // The holder first, though five older jobs are runnable.
    const [first] = await claimJobs(db(), { workerId: "claimer", limit: 1, now: now + 10 });
    expect(first!.id).toBe(holder.id);
    // Its order went unanswered: back to retry, due in a few seconds.
    await db()
      .updateTable("jobs")
      .set({ status: "retry", run_at: now + 3_000 })
      .where("id", "=", holder.id)
      .execute();
    // A waiting job does not sit on a runner for 15 s while the holder waits for its retry: back at once ...
    const [waiter] = await claimJobs(db(), { workerId: "claimer", limit: 1, now: now + 20 });
    expect(waiting).toContain(waiter!.id);
    const started = Date.now();
    await expect(acquireOrderSlot(db(), "starve", "XRP-PERP", `job:${waiter!.id}`)).rejects.toBeInstanceOf(
      SlotBusyError,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    // ... and waiting its turn is not an attempt.
    expect(
      await failJob(db(), waiter!.id, "claimer", "busy", { retryable: true, refundAttempt: true, maxDelayMs: 1_000 }),
    ).toBe("retry");
    const after = await db()
      .selectFrom("jobs")
      .select(["attempts", "run_at"])
      .where("id", "=", waiter!.id)
      .executeTakeFirstOrThrow();
    expect(Number(after.attempts)).toBe(0);
    expect(Number(after.run_at) - Date.now()).toBeLessThanOrEqual(1_000);
    await db()
      .updateTable("jobs")
      .set({ status: "cancelled" })
      .where("id", "in", [...waiting, holder.id])
      .execute();
    expect(await orderSlotHolder(db(), "starve", "XRP-PERP")).toBeNull();
  });

  test("defect 3: a stale close written for a position that Coinbase's stop closed never closes the newer position", async () => {
    await fresh();
    const first = await openLong("BTC-PERP", "0.02");
    // A close for the first position was written (its first attempt failed before sending) ...
    // (its retry not due yet: the worker that opens the next position leaves it alone)
    const job = await enqueueJob(db(), {
      task: "close-position",
      payload: { positionId: first.id, quantity: "all", reason: "Stop loss hit", source: "manual" },
      jobKey: `stale-${Date.now()}`,
      runAt: Date.now() + 3_600_000,
    });
    await db()
      .insertInto("trades")
      .values({
        id: `stale-${job.id}`,
        symbol: "BTC-PERP",
        side: "sell",
        order_type: "market",
        quantity: "0.02",
        status: "pending",
        source: "manual",
        client_order_id: `pd-stale-${job.id}`,
        exchange: "coinbase",
        position_id: first.id,
        job_id: job.id,
        reduce_only: 1 as never,
        created_at: Date.now(),
        updated_at: Date.now(),
      } as never)
      .execute();
    // ... then Coinbase's stop closed it (the worker was down) and a new long opened.
    await syncExchangeStops(db(), live.exchange);
    msw.fake.setPrice(PRODUCT["BTC-PERP"][0], String(Math.floor(Number(first.stop_price) * 0.98)));
    await syncExchangeStops(db(), live.exchange);
    expect(
      (await db().selectFrom("positions").select("status").where("id", "=", first.id).executeTakeFirstOrThrow()).status,
    ).toBe("closed");
    msw.fake.setPrice(PRODUCT["BTC-PERP"][0], "95000");
    const second = await openLong("BTC-PERP", "0.03");
    expect(second.id).not.toBe(first.id);
    // The old close runs again (a retry): nothing is sent, the new long stays.
    const status = await executeTrade(
      { db: db(), exchange: live.exchange, workerId: "faults-w1", attempt: 2 },
      `stale-${job.id}`,
    );
    expect(status).toBe("cancelled");
    const stale = await db()
      .selectFrom("trades")
      .select(["status", "error_message"])
      .where("id", "=", `stale-${job.id}`)
      .executeTakeFirstOrThrow();
    expect(stale.error_message).toMatch(/the position this close was for was closed before it was sent/);
    expect(D(msw.fake.state.positions.get(PRODUCT["BTC-PERP"][0])!.contracts.toString()).eq(3)).toBe(true);
    await syncExchangeStops(db(), live.exchange);
    await expectInStep("BTC-PERP");
    // Tidy for the next test: flat everywhere.
    msw.fake.state.positions.delete(PRODUCT["BTC-PERP"][0]);
    await syncExchangeStops(db(), live.exchange);
    await db()
      .updateTable("positions")
      .set({ status: "closed", remaining_quantity: "0" })
      .where("id", "=", second.id)
      .execute();
  });

  test("defect 5: an empty, one-sided or old book is no price: the stop-loss waits for a real one", async () => {
    await fresh();
    const position = await openLong("BTC-PERP", "0.02");
    const monitor = createRulesMonitor(db(), { exchange: live.exchange });
    const options = { exchangeName: "coinbase", maxAgeMs: 15_000 };
    const closeJobs = async () =>
      (
        await db()
          .selectFrom("jobs")
          .select("id")
          .where("task", "=", "close-position")
          .where("payload", "like", `%${position.id}%`)
          .execute()
      ).length;
    const below = String(Math.floor(Number(position.stop_price) * 0.99));
    msw.fake.state.products.get(PRODUCT["BTC-PERP"][0])!.price = below; // the last trade, below the stop

    for (const shape of [
      { sides: "none" as const },
      { sides: "bids" as const },
      { sides: "asks" as const },
      { ageMs: null },
      { ageMs: 60_000 },
    ]) {
      msw.fake.setBook(PRODUCT["BTC-PERP"][0], shape);
      const ticks = await exchangeTicks(db(), live.exchange);
      if (shape.ageMs === 60_000)
        expect(ticks.find((t) => t.symbol === "BTC-PERP")?.at).toBeLessThan(Date.now() - 50_000);
      else expect(ticks.map((t) => t.symbol)).not.toContain("BTC-PERP");
      await processPriceTicks(db(), ticks, monitor, options);
      expect(await closeJobs()).toBe(0);
    }
    // A two-sided book with Coinbase's current time below the stop: the close is requested.
    msw.fake.setBook(PRODUCT["BTC-PERP"][0], { sides: "both", ageMs: 0 });
    await processPriceTicks(db(), await exchangeTicks(db(), live.exchange), monitor, options);
    expect(await closeJobs()).toBe(1);
    await startWorker();
    await jobsIdle(app);
    await stopWorker();
    await syncExchangeStops(db(), live.exchange);
    await expectInStep("BTC-PERP");
  });

  const marketSells = (symbol: Symbol) =>
    msw.fake.state.orders.filter(
      (o) => o.product_id === PRODUCT[symbol][0] && o.order_configuration.market_market_ioc && o.side === "SELL",
    );
  const stopSize = (symbol: Symbol) =>
    stopOrders(symbol).map(
      (o) => (o.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>).base_size,
    );

  test("a take-profit beside a stop Coinbase will not cut: the stop is cancelled, the take-profit goes out, and a stop for what remains follows", async () => {
    const { position, stop: first } = await longWithStop("BTC-PERP", "0.05", { cdpKeys: [key], editable: false });
    expect(stopSize("BTC-PERP")).toEqual(["5"]);
    await startWorker();
    await marketOrder("sell", "BTC-PERP", "0.02", "tp");
    await stopWorker();
    // The edit was refused, so the stop was cancelled before the sell went out: never 5 + 2 contracts offered against 5.
    expect(msw.fake.state.orders.find((o) => o.order_id === first!.order_id)?.status).toBe("CANCELLED");
    expect(marketSells("BTC-PERP")).toHaveLength(1);
    expect(await remaining(position.id)).toBe("0.03");
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ placed: 1 });
    expect(stopSize("BTC-PERP")).toEqual(["3"]);
    await expectInStep("BTC-PERP");
  });

  test("a cut of the stop with no clear answer: the take-profit waits (its job retries) and goes out once, the stop never more than the position", async () => {
    const { position, stop } = await longWithStop("BTC-PERP", "0.05");
    msw.fake.fail({ method: "POST", path: "/orders/edit", status: 503 });
    // Without an answer the stop's size is unknown: the order must not go out beside it.
    await expect(
      withdrawStopFor(db(), live.exchange, "BTC-PERP", { side: "sell", quantity: "0.02", orderType: "market" }),
    ).rejects.toThrow();
    expect(stopSize("BTC-PERP")).toEqual(["5"]);
    expect(marketSells("BTC-PERP")).toHaveLength(0);
    // Through the pipeline: the first cut gets no answer, the job retries, the cut lands, the sell goes out once.
    msw.fake.fail({ method: "POST", path: "/orders/edit", status: 503 });
    await startWorker();
    await marketOrder("sell", "BTC-PERP", "0.02", "tp", 30_000);
    await stopWorker();
    expect(marketSells("BTC-PERP")).toHaveLength(1);
    expect(stopOrders("BTC-PERP").map((o) => o.order_id)).toEqual([stop!.order_id]); // the same stop, cut in place
    expect(stopSize("BTC-PERP")).toEqual(["3"]);
    expect(await remaining(position.id)).toBe("0.03");
    await expectInStep("BTC-PERP");
  }, 60_000);

  test("a stop move with no clear answer keeps the old stop resting and says so; the next pass moves it", async () => {
    const { position, stop } = await longWithStop("BTC-PERP", "0.02");
    const before = (stop!.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>).stop_price;
    const moved = await moveStopToBreakEven(position);
    msw.fake.fail({ method: "POST", path: "/orders/edit", status: 503 });
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ moved: 0, placed: 0 });
    expect(stopOrders("BTC-PERP").map((o) => o.order_id)).toEqual([stop!.order_id]);
    expect(
      (stopOrders("BTC-PERP")[0]!.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>).stop_price,
    ).toBe(before);
    expect(await stopRecord(position.id)).toMatchObject({ status: "resting", stop_price: before });
    const warned = await logsLike("Resting stop for BTC-PERP%not moved%");
    expect(warned).toHaveLength(1);
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ moved: 1 });
    expect(stopOrders("BTC-PERP").map((o) => o.order_id)).toEqual([stop!.order_id]);
    expect(
      (stopOrders("BTC-PERP")[0]!.order_configuration.stop_limit_stop_limit_gtc as Record<string, string>).stop_price,
    ).toBe(moved);
    await expectInStep("BTC-PERP");
  });

  test("an order waits while the stop's placement is unanswered and not yet listed, then goes out once after the grace", async () => {
    await fresh();
    const position = await openLong("ETH-PERP", "0.2");
    msw.fake.fail({ method: "POST", path: "/orders", status: 502 }); // never taken, no clear answer
    expect(await syncExchangeStops(db(), live.exchange)).toMatchObject({ unresolved: 1 });
    const placingAt = Date.now();
    await expect(
      withdrawStopFor(db(), live.exchange, "ETH-PERP", { side: "sell", quantity: "0.2", orderType: "market" }),
    ).rejects.toThrow(/waits until it is known/);
    await startWorker();
    await marketOrder("sell", "ETH-PERP", "0.2", "exit", 30_000);
    await stopWorker();
    const [sell, ...more] = marketSells("ETH-PERP");
    expect(more).toHaveLength(0);
    // Not before the grace: a stop that might rest was never left beside the exit.
    expect(Date.parse(sell!.created_time) - placingAt).toBeGreaterThanOrEqual(PLACING_LOOKUP_GRACE_MS - 250);
    expect(
      (await db().selectFrom("positions").select("status").where("id", "=", position.id).executeTakeFirstOrThrow())
        .status,
    ).toBe("closed");
    await syncExchangeStops(db(), live.exchange);
    expect(stopOrders("ETH-PERP")).toHaveLength(0);
    await expectInStep("ETH-PERP");
  }, 60_000);
});
