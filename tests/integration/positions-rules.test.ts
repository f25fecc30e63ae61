// Positions under protection, on both dialects: a webhook opens a position, a scripted price
// path (setPrice + processPriceTicks, no timers) takes it through TP1, break-even, TP2 and a
// trailing exit; closes racing each other never over-close; apply-rules, close, details,
// portfolio summary, reset-stats and who may call them. Expected figures are worked out in
// the comments (simulator: taker fee 0.0006, slippage 0.0005 against the taker, ETH tick 0.01).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { DEFAULT_TRADING_CONFIG } from "#app/core/schemas/trading-config.ts";
import {
  cookieFrom,
  expectJsonAccess,
  freshApp,
  jobsIdle,
  registerVia,
  sendSignal,
  waitFor,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";
import { processPriceTicks } from "#worker/monitor/price-loop.ts";
import { positionRowToPosition } from "#db/queries/positions.ts";
import { saveTradingConfig } from "#db/queries/trading-state.ts";

describe.each(testDialects())("positions and rules on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  let admin: string;
  let user: string;
  let secret: string;
  let runners: Runner[] = [];
  const db = () => app.database.db;

  const webhook = (body: Record<string, unknown>) => sendSignal(app, secret, body);
  const startWorkers = (n = 1) => {
    runners = Array.from({ length: n }, (_, i) =>
      startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: `w${i + 1}`, pollMs: 3 }),
    );
  };
  const idle = () => jobsIdle(app);
  /** A price tick as the price loop makes it: the stored price, then resting fills and the rules monitor. */
  const tick = async (symbol: string, price: string) => {
    await setPrice(db(), symbol, price, "test");
    const result = await processPriceTicks(db(), [{ symbol, price }]);
    await idle();
    return result;
  };
  const openPosition = async (action: "buy" | "sell", symbol: string, quantity: string) => {
    const response = await webhook({
      action,
      symbol,
      quantity,
      order_type: "market",
      id: `t-${Date.now()}-${Math.random()}`,
    });
    expect(response.status).toBe(200);
    return waitFor(
      "position open",
      async () => {
        const row = await db()
          .selectFrom("positions")
          .selectAll()
          .where("symbol", "=", symbol)
          .where("status", "=", "open")
          .executeTakeFirst();
        return row ? positionRowToPosition(row) : null;
      },
      15_000,
      10,
    );
  };
  const position = async (id: string) =>
    positionRowToPosition(
      await db().selectFrom("positions").selectAll().where("id", "=", id).executeTakeFirstOrThrow(),
    );
  const tradeLogs = async (sinceId: number) =>
    (
      await db()
        .selectFrom("activity_logs")
        .select(["id", "message"])
        .where("type", "=", "trade")
        .where("id", ">", sinceId)
        .orderBy("id")
        .execute()
    ).map((r) => r.message);
  const lastLogId = async () =>
    Number(
      (
        await db()
          .selectFrom("activity_logs")
          .select((eb) => eb.fn.max("id").as("m"))
          .executeTakeFirst()
      )?.m ?? 0,
    );
  /** The simulator's own size of `symbol` (its sim_positions row). */
  const simQuantity = async (symbol: string) =>
    D(
      (await db().selectFrom("sim_positions").selectAll().where("symbol", "=", symbol).executeTakeFirstOrThrow())
        .quantity,
    ).toString();
  /** The messages of activity log lines like `pattern`, logged after `sinceId`. */
  const messagesLike = async (pattern: string, sinceId = 0) =>
    (
      await db()
        .selectFrom("activity_logs")
        .select("message")
        .where("id", ">", sinceId)
        .where("message", "like", pattern)
        .execute()
    ).map((l) => l.message);
  const closes = async (positionId: string) =>
    (
      await db()
        .selectFrom("trades")
        .selectAll()
        .where("position_id", "=", positionId)
        .where("reduce_only", "=", 1)
        .orderBy("created_at")
        .orderBy("id")
        .execute()
    ).map((t) => ({
      status: t.status,
      quantity: D(t.executed_quantity).toString(),
      price: t.executed_price === null ? null : D(t.executed_price).toString(),
      source: t.source,
    }));

  beforeAll(async () => {
    admin = (await registerVia(app, "rules_admin")).cookie;
    user = (await registerVia(app, "rules_user")).cookie;
    secret = await webhookSecret(app, admin);
    await new SimulatorAdapter(db()).ensureAccount();
  });
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
  });
  beforeEach(async () => {
    await Promise.all(runners.map((r) => r.stop()));
    runners = [];
    for (const table of ["trades", "jobs", "positions", "sim_orders", "signals", "sim_positions"] as const)
      await db().deleteFrom(table).execute();
    await db().updateTable("balances").set({ available: "10000", hold: "0" }).execute();
    await saveTradingConfig(db(), DEFAULT_TRADING_CONFIG);
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin });
    await setPrice(db(), "ETH-PERP", "3000", "test");
    await setPrice(db(), "BTC-PERP", "100000", "test");
  });

  test("webhook → position; TP1, break-even, TP2, trailing exit: trades, position, logs and P&L exactly", async () => {
    startWorkers();
    // Entry: BUY 1 ETH at 3000 × 1.0005 = 3001.50, fee 3001.5 × 0.0006 = 1.8009.
    const opened = await openPosition("buy", "ETH-PERP", "1");
    expect(opened).toMatchObject({
      side: "long",
      quantity: "1",
      remainingQuantity: "1",
      entryPrice: "3001.5",
      stopPrice: "2986.4925",
    });
    // Levels from 3001.5: TP1 3016.5075, TP2 3031.515, TP3 3046.5225; stop 2986.4925;
    // trailing arms at 3037.518 and exits 0.6 % below the best price.
    const since = await lastLogId();

    await tick("ETH-PERP", "2995"); // drawdown (3001.5 − 2995) / 3001.5 × 100 = 0.21655… → 0.2166
    expect((await position(opened.id)).maxDrawdown).toBe("0.2166");

    const tp1 = await tick("ETH-PERP", "3017"); // TP1: 20 % of 1
    expect(tp1.closes).toBe(1);
    let p = await position(opened.id);
    // SELL 0.2 at 3017 × 0.9995 = 3015.4915 → 3015.49; gross (3015.49 − 3001.5) × 0.2 = 2.798,
    // net of fees (FIFO, docs/pnl.md): − entry share 1.8009 × 0.2 = 0.36018 − exit fee 0.3618588 = 2.0759612.
    // Break-even (decision 046): (3001.5 + 1.8009) / (1 − 0.0006) = 3005.1039…, + 0.1 % of the entry (3.0015)
    // = 3008.1054…, up to the tick: 3008.11, not the bare entry.
    expect(p).toMatchObject({
      remainingQuantity: "0.8",
      breakEvenTriggered: true,
      stopPrice: "3008.11",
      realizedPnl: "2.0759612",
    });
    expect(p.ruleState).toMatchObject({ tpFilled: [0], requested: {} });

    await tick("ETH-PERP", "3017"); // the same price again: no second close for TP1
    await tick("ETH-PERP", "3038"); // TP2 (30 % of 1) and the trailing stop arms at 3038
    p = await position(opened.id);
    // SELL 0.3 at 3038 × 0.9995 = 3036.481 → 3036.48; gross 34.98 × 0.3 = 10.494, net
    // − 0.54027 (1.8009 × 0.3) − 0.5465664 = 9.4071636; position 2.0759612 + 9.4071636 = 11.4831248.
    expect(p).toMatchObject({
      remainingQuantity: "0.5",
      trailingStopActive: true,
      trailingBestPrice: "3038",
      realizedPnl: "11.4831248",
    });

    await tick("ETH-PERP", "3045"); // best 3045: exit at 3045 × 0.994 = 3026.73
    await tick("ETH-PERP", "3027"); // above the exit: nothing
    expect((await position(opened.id)).remainingQuantity).toBe("0.5");
    await tick("ETH-PERP", "3026"); // retrace reached: close what remains
    p = await position(opened.id);
    // SELL 0.5 at 3026 × 0.9995 = 3024.487 → 3024.48; gross 22.98 × 0.5 = 11.49, net − the entry
    // fee left 0.90045 − 0.907344 = 9.682206; position 21.1653308 (gross 24.782 − fees 3.6166692).
    // Fees 1.8009 + 0.3618588 + 0.5465664 + 0.907344 = 3.6166692.
    expect(p).toMatchObject({
      status: "closed",
      remainingQuantity: "0",
      realizedPnl: "21.1653308",
      fees: "3.6166692",
      maxDrawdown: "0.2166",
      trailingBestPrice: "3045",
    });

    expect(await closes(opened.id)).toEqual([
      { status: "executed", quantity: "0.2", price: "3015.49", source: "rule" },
      { status: "executed", quantity: "0.3", price: "3036.48", source: "rule" },
      { status: "executed", quantity: "0.5", price: "3024.48", source: "rule" },
    ]);
    const keys = (
      await db()
        .selectFrom("jobs")
        .select(["job_key", "status"])
        .where("task", "=", "close-position")
        .orderBy("id")
        .execute()
    ).map((j) => [j.job_key, j.status]);
    expect(keys).toEqual([
      [`rule:${opened.id}:tp1`, "completed"],
      [`rule:${opened.id}:tp2`, "completed"],
      [`rule:${opened.id}:trail`, "completed"],
    ]);
    expect(await tradeLogs(since)).toEqual([
      "Take profit 1 hit: closing 0.2 ETH-PERP at 3017.00",
      "Order filled on simulator: SELL 0.2 ETH-PERP @ 3015.49 (fee 0.3618588), realised P&L 2.08 (net of fees)",
      "Break-even: stop for ETH-PERP moved to 3008.11 (entry 3001.5 + fees + offset) after the first take-profit",
      "Trailing stop armed for ETH-PERP at 3038.00: closes on a 0.6% retrace from the best price",
      "Take profit 2 hit: closing 0.3 ETH-PERP at 3038.00",
      "Order filled on simulator: SELL 0.3 ETH-PERP @ 3036.48 (fee 0.5465664), realised P&L 9.41 (net of fees)",
      "Trailing stop hit: closing 0.5 ETH-PERP at 3026.00",
      "Order filled on simulator: SELL 0.5 ETH-PERP @ 3024.48 (fee 0.907344), realised P&L 9.68 (net of fees)",
    ]);

    // Statistics: FIFO P&L net of fees = 24.782 − 3.6166692 = 21.1653308, three matches.
    const pnl = await (await app.fetch("/api/closed-trades-pnl", { cookie: user })).json();
    expect(pnl).toEqual({ totalPnL: "21.1653308", realizedMatches: 3, closingTrades: 3 });
    // The paper account agrees: 10000 + 21.1653308, nothing held, nothing open.
    const summary = (await (await app.fetch("/api/portfolio-summary", { cookie: user })).json()) as Record<
      string,
      unknown
    >;
    expect(summary).toMatchObject({
      equity: "10021.1653308",
      walletBalance: "10021.1653308",
      marginUsed: "0",
      unrealizedPnL: "0",
      realizedPnL: "21.1653308",
      openPositions: 0,
      currency: "USDC",
    });

    // Details: four trades, the signal, volume 3001.5 + 603.098 + 910.944 + 1512.24 = 6027.782.
    const details = (await (await app.fetch(`/api/positions/${opened.id}/details`, { cookie: user })).json()) as {
      trades: { side: string; executedQuantity: string }[];
      relatedSignal: { id: string; action: string };
      metrics: Record<string, string>;
    };
    expect(details.trades.map((t) => `${t.side} ${t.executedQuantity}`)).toEqual([
      "buy 1",
      "sell 0.2",
      "sell 0.3",
      "sell 0.5",
    ]);
    expect(details.relatedSignal).toMatchObject({ id: opened.signalId, action: "buy" });
    expect(details.metrics).toMatchObject({
      totalVolume: "6027.782",
      estimatedFees: "3.6166692",
      feesPaid: "3.6166692",
      unrealizedPnL: "0",
    });
  });

  test("a short: the stop loss above the entry closes it; break-even after TP1 on a short", async () => {
    startWorkers();
    // SELL 0.01 BTC at 100000 × 0.9995 = 99950; stop 99950 × 1.005 = 100449.75; TP1 99450.25.
    const opened = await openPosition("sell", "BTC-PERP", "0.01");
    expect(opened).toMatchObject({ side: "short", entryPrice: "99950", stopPrice: "100449.75" });
    await tick("BTC-PERP", "100449.7");
    expect((await position(opened.id)).status).toBe("open");
    await tick("BTC-PERP", "100449.8");
    const p = await position(opened.id);
    // BUY 0.01 at 100449.8 × 1.0005 = 100500.0249 → 100500.1 (rounded up to the tick); gross (99950 − 100500.1) × 0.01 = −5.501,
    // net of the entry fee 0.5997 and the exit fee 0.6030006: −6.7037006.
    expect(p).toMatchObject({ status: "closed", realizedPnl: "-6.7037006", maxDrawdown: "0.5001" });
    expect(await closes(opened.id)).toEqual([
      { status: "executed", quantity: "0.01", price: "100500.1", source: "rule" },
    ]);

    const second = await openPosition("sell", "BTC-PERP", "0.01"); // at 100449.8 × 0.9995 = 100399.5
    await tick("BTC-PERP", "99890"); // TP1: 100399.5 × 0.995 = 99897.5025 → 20 % of 0.01 = 0.002
    // Entry fee 0.01 × 100399.5 × 0.0006 = 0.602397; (100399.5 − 60.2397) / 1.0006 = 100279.0929…, − 0.1 % (100.3995)
    // = 100178.6934…, down to the 0.1 tick: 100178.6 — below the entry, by the fees and the offset.
    expect(await position(second.id)).toMatchObject({
      remainingQuantity: "0.008",
      breakEvenTriggered: true,
      stopPrice: "100178.6",
    });
    await tick("BTC-PERP", "100178.5"); // under the stop: nothing
    expect((await position(second.id)).remainingQuantity).toBe("0.008");
    await tick("BTC-PERP", "100178.6"); // back up to the break-even stop: it closes the rest
    expect(await position(second.id)).toMatchObject({ status: "closed", remainingQuantity: "0" });
    expect((await closes(second.id)).map((c) => c.quantity)).toEqual(["0.002", "0.008"]);
    const logs = await messagesLike("Break-even stop hit%");
    expect(logs).toEqual(["Break-even stop hit: closing 0.008 BTC-PERP at 100178.6"]);
  });

  test("honest break-even (issue 25, decision 046): the 0.8 ETH long that lost 4.63 at the bare entry now exits at >= 0 after fees", async () => {
    startWorkers();
    await setPrice(db(), "ETH-PERP", "3400", "test");
    const since = await lastLogId();
    // BUY 0.8 ETH at 3400 × 1.0005 = 3401.70 (the entry), fee 0.8 × 3401.70 × 0.0006 = 1.632816.
    const opened = await openPosition("buy", "ETH-PERP", "0.8");
    expect(opened).toMatchObject({ entryPrice: "3401.7", fees: "1.632816" });
    await tick("ETH-PERP", "3419"); // TP1 (3401.70 × 1.005 = 3418.7085): SELL 0.16
    let p = await position(opened.id);
    // (3401.70 + 1.632816 / 0.8) / 0.9994 = 3405.7845…, + 0.1 % of the entry (3.4017) = 3409.1862…, up: 3409.19.
    expect(p).toMatchObject({ remainingQuantity: "0.64", breakEvenTriggered: true, stopPrice: "3409.19" });
    expect(p.ruleState).toMatchObject({ breakEvenStop: "3409.19" });
    await tick("ETH-PERP", "3409.2"); // above the stop: nothing
    expect((await position(opened.id)).remainingQuantity).toBe("0.64");
    await tick("ETH-PERP", "3409.19"); // the price falls back to the break-even stop: the rest closes
    p = await position(opened.id);
    expect(p).toMatchObject({ status: "closed", remainingQuantity: "0" });
    const exits = await db()
      .selectFrom("trades")
      .select(["executed_price", "executed_quantity", "realized_pnl", "fee"])
      .where("position_id", "=", opened.id)
      .where("reduce_only", "=", 1)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    expect(exits.map((t) => D(t.executed_quantity).toString())).toEqual(["0.16", "0.64"]);
    const last = exits[1]!;
    // SELL 0.64 at 3409.19 × 0.9995 = 3407.4854… (the simulator's slippage): gross (3407.48… − 3401.70) × 0.64 ≈ 3.70,
    // − the entry fee share 1.632816 × 0.64 / 0.8 = 1.3062528 − the exit fee ≈ 1.3085: ≈ +1.08, never a loss.
    expect(D(last.executed_price!).gte("3407.48")).toBe(true);
    expect(D(last.realized_pnl!).gte(0)).toBe(true);
    const gross = D(last.executed_price!).minus("3401.7").times("0.64");
    expect(D(last.realized_pnl!).toString()).toBe(gross.minus("1.3062528").minus(last.fee).toString());
    // The whole position nets above zero, fees included.
    expect(D(p.realizedPnl).gt(0)).toBe(true);
    const moved = await messagesLike("Break-even: stop for ETH-PERP%", since);
    expect(moved).toEqual([
      "Break-even: stop for ETH-PERP moved to 3409.19 (entry 3401.7 + fees + offset) after the first take-profit",
    ]);
  });

  test("honest break-even with an offset in ticks, set on Trading Rules: a short", async () => {
    startWorkers();
    await saveTradingConfig(db(), { ...DEFAULT_TRADING_CONFIG, breakEvenOffset: { unit: "ticks", value: 200 } });
    await setPrice(db(), "ETH-PERP", "3400", "test");
    // SELL 0.8 at 3400 × 0.9995 = 3398.30, fee 0.8 × 3398.30 × 0.0006 = 1.631184 (2.03898 per ETH).
    const opened = await openPosition("sell", "ETH-PERP", "0.8");
    expect(opened).toMatchObject({
      entryPrice: "3398.3",
      advancedControls: { breakEvenOffset: { unit: "ticks", value: 200 } },
    });
    await tick("ETH-PERP", "3381"); // TP1: 3398.30 × 0.995 = 3381.3085
    // (3398.30 − 2.03898) / 1.0006 = 3394.2246…, − 200 ticks (2.00) = 3392.2246…, down: 3392.22.
    expect(await position(opened.id)).toMatchObject({
      remainingQuantity: "0.64",
      breakEvenTriggered: true,
      stopPrice: "3392.22",
    });
    await tick("ETH-PERP", "3392.21");
    expect((await position(opened.id)).remainingQuantity).toBe("0.64");
    await tick("ETH-PERP", "3392.22"); // the price comes back up to the stop
    const p = await position(opened.id);
    expect(p.status).toBe("closed");
    const last = await db()
      .selectFrom("trades")
      .select(["executed_price", "realized_pnl", "fee"])
      .where("position_id", "=", opened.id)
      .where("reduce_only", "=", 1)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    // BUY 0.64 at 3392.22 × 1.0005 = 3393.9161… (slippage against the taker): gross (3398.30 − ~3393.92) × 0.64 ≈ 2.80,
    // − the entry share 1.631184 × 0.8 = 1.3049472 − the exit fee ≈ 1.3033: ≈ +0.19 after fees and slippage.
    const gross = D("3398.3").minus(last.executed_price!).times("0.64");
    expect(D(last.realized_pnl!).toString()).toBe(gross.minus("1.3049472").minus(last.fee).toString());
    expect(D(last.realized_pnl!).gte(0)).toBe(true);
  });

  test("one trigger, one close: ticks racing each other make one job", async () => {
    const opened = await openPositionWithoutWorkers("ETH-PERP", "1");
    await setPrice(db(), "ETH-PERP", "3020", "test");
    const results = await Promise.all(
      [1, 2, 3, 4].map(() => processPriceTicks(db(), [{ symbol: "ETH-PERP", price: "3020" }])),
    );
    expect(results.reduce((n, r) => n + r.closes, 0)).toBe(1);
    const jobs = await db()
      .selectFrom("jobs")
      .select(["job_key", "payload"])
      .where("task", "=", "close-position")
      .execute();
    expect(jobs.map((j) => j.job_key)).toEqual([`rule:${opened.id}:tp1`]);
    expect(JSON.parse(jobs[0]!.payload)).toEqual({
      positionId: opened.id,
      quantity: "0.2",
      reason: "Take profit 1 hit",
      source: "rule",
      trigger: "tp1",
    });
    expect((await position(opened.id)).ruleState).toMatchObject({
      requested: { tp1: { levels: [0], quantity: "0.2" } },
    });
  });

  test("apply-rules and a manual close racing a take-profit never over-close", async () => {
    for (let round = 0; round < 4; round++) {
      startWorkers(2);
      const opened = await openPosition("buy", "ETH-PERP", "1");
      await setPrice(db(), "ETH-PERP", "3040", "test"); // TP1 and TP2 at once for the monitor
      const [, close, apply] = await Promise.all([
        processPriceTicks(db(), [{ symbol: "ETH-PERP", price: "3040" }]),
        app.fetch("/api/positions/ETH-PERP/close", { method: "POST", cookie: user }),
        app.fetch("/api/positions/apply-rules", { method: "POST", cookie: admin }),
        processPriceTicks(db(), [{ symbol: "ETH-PERP", price: "3040" }]),
      ]);
      expect(close.status).toBe(200);
      expect(apply.status).toBe(200);
      const applied = (await apply.json()) as { appliedCount: number; totalPositions: number };
      expect(applied.appliedCount).toBe(applied.totalPositions); // 1, or 0 when the close won the race
      expect(applied.totalPositions).toBeLessThanOrEqual(1);
      await idle();
      await processPriceTicks(db(), [{ symbol: "ETH-PERP", price: "3040" }]);
      await idle();
      const done = await closes(opened.id);
      const closed = done.filter((c) => c.status === "executed").reduce((acc, c) => acc.plus(c.quantity), D(0));
      expect(closed.toString(), JSON.stringify(done)).toBe("1"); // everything closed, nothing more
      expect(await position(opened.id)).toMatchObject({ status: "closed", remainingQuantity: "0" });
      expect(await simQuantity("ETH-PERP")).toBe("0"); // the exchange agrees: flat, never flipped short
      await Promise.all(runners.map((r) => r.stop()));
      runners = [];
    }
  }, 60_000);

  test("the emergency stop never holds protection: a queued rule close survives it, new triggers fire, manual Close works; entries are refused", async () => {
    const opened = await openPositionWithoutWorkers("ETH-PERP", "1");
    await setPrice(db(), "ETH-PERP", "3020", "test");
    await processPriceTicks(db(), [{ symbol: "ETH-PERP", price: "3020" }]); // TP1 requested, not run yet
    const stop = await app.fetch("/api/emergency-stop", { method: "POST", cookie: user });
    expect(stop.status).toBe(200);
    // The close job is not cancelled: it only reduces risk.
    expect(
      (
        await db()
          .selectFrom("jobs")
          .select("status")
          .where("job_key", "=", `rule:${opened.id}:tp1`)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe("created");
    startWorkers();
    await idle();
    expect(await position(opened.id)).toMatchObject({ remainingQuantity: "0.8", breakEvenTriggered: true });

    // Under the stop the price falls through the break-even stop: the stop-loss still fires.
    await setPrice(db(), "ETH-PERP", "2990", "test");
    const fired = await processPriceTicks(db(), [{ symbol: "ETH-PERP", price: "2990" }]);
    expect(fired.closes).toBe(1);
    await idle();
    expect(await position(opened.id)).toMatchObject({ status: "closed", remainingQuantity: "0" });
    expect(await simQuantity("ETH-PERP")).toBe("0");

    // A new entry is refused while the stop is on; a manual Close of another position is not.
    const entry = await webhook({
      action: "buy",
      symbol: "SOLUSDT.P",
      quantity: "1",
      order_type: "market",
      id: `stop-${Date.now()}`,
    });
    expect(entry.status).toBe(200);
    expect(await entry.json()).toMatchObject({ status: "skipped" });
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin });
    await setPrice(db(), "SOL-PERP", "180", "test");
    const second = await openPosition("buy", "SOL-PERP", "1");
    await app.fetch("/api/emergency-stop", { method: "POST", cookie: user });
    const close = await app.fetch("/api/positions/SOL-PERP/close", { method: "POST", cookie: user });
    expect(close.status).toBe(200);
    await idle();
    expect(await position(second.id)).toMatchObject({ status: "closed" });
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin }); // only an admin resumes
  });

  test("closes the exchange refuses are retried under new keys after a back-off, never given up, with one error line", async () => {
    startWorkers();
    const opened = await openPosition("buy", "ETH-PERP", "1");
    await db().deleteFrom("sim_positions").execute(); // the exchange no longer has it: every reduce-only close is refused
    const ruleState = async () =>
      JSON.parse(
        String(
          (
            await db()
              .selectFrom("positions")
              .select("rule_state")
              .where("id", "=", opened.id)
              .executeTakeFirstOrThrow()
          ).rule_state,
        ),
      );
    /** As if the back-off had passed. */
    const endHold = async () => {
      await db()
        .updateTable("positions")
        .set({ rule_state: JSON.stringify({ ...(await ruleState()), holdUntil: {} }) })
        .where("id", "=", opened.id)
        .execute();
    };
    await tick("ETH-PERP", "2980"); // at or below the stop 2986.4925: refused
    await tick("ETH-PERP", "2980"); // backing off (5 s): nothing requested
    expect(await db().selectFrom("jobs").select("job_key").where("task", "=", "close-position").execute()).toHaveLength(
      1,
    );
    for (let i = 0; i < 4; i++) {
      await endHold();
      await tick("ETH-PERP", "2980");
    }
    const jobs = (
      await db().selectFrom("jobs").select("job_key").where("task", "=", "close-position").orderBy("id").execute()
    ).map((j) => j.job_key);
    expect(jobs).toEqual([1, 2, 3, 4, 5].map((n) => (n === 1 ? `rule:${opened.id}:sl` : `rule:${opened.id}:sl:${n}`)));
    expect((await closes(opened.id)).map((c) => c.status)).toEqual(["failed", "failed", "failed", "failed", "failed"]);
    const p = await position(opened.id);
    expect(p).toMatchObject({ status: "open", remainingQuantity: "1" });
    expect(p.ruleState).toMatchObject({ requested: {}, failures: { sl: 5 } });
    expect((await ruleState()).holdUntil.sl).toBeGreaterThan(Date.now() + 250_000); // the 5th in a row: 5 min
    const alarms = await db()
      .selectFrom("activity_logs")
      .select(["level", "message"])
      .where("message", "like", "Stop-loss closes%")
      .execute();
    expect(alarms).toEqual([
      {
        level: "error",
        message:
          "Stop-loss closes for ETH-PERP failed 3 times in a row: protection paused, retrying in 60 s (then at most every 5 min until one fills); check the exchange or close it by hand",
      },
    ]);
  });

  test("POST /api/positions/{symbol}/close, the details call and the page's close form", async () => {
    startWorkers();
    const missing = await app.fetch("/api/positions/ETH-PERP/close", { method: "POST", cookie: user });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ success: false, error: "No open position for ETH-PERP" });

    const opened = await openPosition("buy", "ETH-PERP", "0.5");
    const details = await (await app.fetch(`/api/positions/${opened.id}/details`, { cookie: user })).json();
    // Marked at 3000: (3000 − 3001.5) × 0.5 = −0.75; fees 0.90045 paid + 0.5 × 3000 × 0.0006 = 0.9 to close.
    expect(details.metrics).toEqual({
      totalVolume: "1500.75",
      estimatedFees: "1.80045",
      feesPaid: "0.90045",
      unrealizedPnL: "-0.75",
      markPrice: "3000",
    });
    expect(details.exchange).toEqual({ name: "simulator", label: "Simulator (paper trading)" });
    expect((await app.fetch("/api/positions/nope/details", { cookie: user })).status).toBe(404);

    const response = await app.fetch("/api/positions/eth-perp/close", { method: "POST", cookie: user });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { success: boolean; message: string; jobId: number };
    expect(body).toMatchObject({ success: true, message: "Close order queued for ETH-PERP" });
    await idle();
    expect(await position(opened.id)).toMatchObject({ status: "closed" });
    expect(await closes(opened.id)).toEqual([
      { status: "executed", quantity: "0.5", price: "2998.5", source: "manual" },
    ]);
    const job = await db().selectFrom("jobs").selectAll().where("id", "=", body.jobId).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ task: "close-position", status: "completed" });

    // Without JavaScript the screen's Close button posts intent=close to the page: a redirect with a toast.
    const again = await openPosition("sell", "ETH-PERP", "0.1");
    const form = await app.fetch("/positions", {
      method: "POST",
      cookie: user,
      form: { intent: "close", symbol: "ETH-PERP" },
    });
    expect(form.status).toBe(302);
    expect(form.headers.get("location")).toBe("/positions");
    const toast = cookieFrom(form, "tv_toast");
    expect(toast).toBeTruthy();
    await idle();
    expect(await position(again.id)).toMatchObject({ status: "closed" });
    const page = await app.fetch("/positions", { cookie: `${user}; ${toast}` });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Position Closed");
    expect(html).toContain("Successfully closed position for ETH-PERP");
    expect(html).toContain("No Open Positions");
  });

  test("apply-rules copies the config by each position's source", async () => {
    startWorkers();
    const signal = await openPosition("buy", "ETH-PERP", "0.5");
    const placed = await app.fetch("/api/trades", {
      method: "POST",
      cookie: user,
      json: { symbol: "BTC-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "0.001" },
    });
    expect(placed.status).toBe(201);
    const manual = await waitFor(
      "manual position",
      async () => {
        const row = await db()
          .selectFrom("positions")
          .selectAll()
          .where("symbol", "=", "BTC-PERP")
          .where("status", "=", "open")
          .executeTakeFirst();
        return row ? positionRowToPosition(row) : null;
      },
      15_000,
      10,
    );
    await tick("ETH-PERP", "3016.6"); // TP1 filled on the signal position: break-even triggered
    expect(await position(signal.id)).toMatchObject({ breakEvenTriggered: true });

    await saveTradingConfig(db(), {
      ...DEFAULT_TRADING_CONFIG,
      stopLossOffset: 0.01,
      applyTakeProfitToSignals: false,
      applyTrailingStopToManual: false,
      breakEvenEnabled: false,
    });
    const denied = await app.fetch("/api/positions/apply-rules", { method: "POST", cookie: user });
    expect(denied.status).toBe(403);
    const since = await lastLogId();
    const applied = await app.fetch("/api/positions/apply-rules", { method: "POST", cookie: admin });
    expect(await applied.json()).toEqual({ appliedCount: 2, totalPositions: 2 });
    const s = await position(signal.id);
    expect(s.advancedControls).toEqual({
      takeProfits: null,
      stopLossOffset: 0.01,
      breakEven: false,
      trailingStop: { activation: 0.012, execute: 0.006 },
    });
    expect(s).toMatchObject({ breakEvenTriggered: false, stopPrice: "2971.485" }); // 3001.5 × 0.99
    const m = await position(manual.id);
    expect(m.advancedControls).toMatchObject({
      takeProfits: DEFAULT_TRADING_CONFIG.takeProfits,
      stopLossOffset: 0.01,
      trailingStop: null,
    });
    const log = await messagesLike("Trading rules applied%", since);
    expect(log).toEqual(["Trading rules applied to 2 of 2 open positions by rules_admin"]);
  });

  test("reset-stats refuses while a position is open; after Flatten all it deletes trades, signals, positions and logs in one go", async () => {
    startWorkers();
    await openPosition("buy", "ETH-PERP", "0.2");
    await idle();
    const count = async (table: "trades" | "signals" | "positions" | "activity_logs" | "jobs" | "sim_orders") =>
      Number(
        (await db()
          .selectFrom(table as "trades")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirst())!.n,
      );
    expect(await count("trades")).toBe(1);
    expect((await app.fetch("/api/reset-stats", { method: "POST", cookie: user })).status).toBe(403);
    const refused = await app.fetch("/api/reset-stats", { method: "POST", cookie: admin });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      success: false,
      error: "Close the positions and cancel the orders first (Flatten all): 1 open position",
    });
    expect(await count("positions")).toBe(1);

    const flat = await app.fetch("/api/positions/close-all", { method: "POST", cookie: user });
    expect(await flat.json()).toMatchObject({ closed: 1, flat: true });
    await idle();
    const logCount = await count("activity_logs");
    expect(logCount).toBeGreaterThan(0);
    const response = await app.fetch("/api/reset-stats", { method: "POST", cookie: admin });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      success: true,
      message: `Statistics reset: 2 trades, 1 signals, 1 positions and ${logCount} log entries deleted`,
    });
    expect([await count("trades"), await count("signals"), await count("positions"), await count("jobs")]).toEqual([
      0, 0, 0, 0,
    ]);
    const logs = await db().selectFrom("activity_logs").select("message").execute();
    expect(logs.map((l) => l.message)).toEqual([
      `Statistics reset by rules_admin: 2 trades, 1 signals, 1 positions and ${logCount} log entries deleted`,
    ]);
    expect(await count("sim_orders")).toBe(2); // the exchange keeps its order history
    expect(await (await app.fetch("/api/closed-trades-pnl", { cookie: user })).json()).toEqual({
      totalPnL: "0",
      realizedMatches: 0,
      closingTrades: 0,
    });
    // A second reset cannot erase the record of the first.
    expect((await app.fetch("/api/reset-stats", { method: "POST", cookie: admin })).status).toBe(200);
    const audit = (await db().selectFrom("activity_logs").select("message").orderBy("id").execute()).map(
      (l) => l.message,
    );
    expect(audit).toEqual([
      `Statistics reset by rules_admin: 2 trades, 1 signals, 1 positions and ${logCount} log entries deleted`,
      "Statistics reset by rules_admin: 0 trades, 0 signals, 0 positions and 0 log entries deleted",
    ]);
  });

  // [method, path, anonymous, user, admin] with no open position.
  const MATRIX: [string, string, number, number, number][] = [
    ["POST", "/api/positions/ETH-PERP/close", 401, 404, 404],
    ["GET", "/api/positions/ETH-PERP/close", 401, 405, 405],
    ["GET", "/api/positions/00000000-0000-0000-0000-000000000000/details", 401, 404, 404],
    ["POST", "/api/positions/apply-rules", 401, 403, 200],
    ["GET", "/api/positions/apply-rules", 401, 403, 405],
    ["GET", "/api/portfolio-summary", 401, 200, 200],
    ["POST", "/api/reset-stats", 401, 403, 200],
    ["GET", "/api/reset-stats", 401, 403, 405],
  ];
  test.each(MATRIX)("%s %s answers JSON %i / %i / %i (anonymous / user / admin)", async (...row) => {
    await expectJsonAccess(app, row, { user, admin });
  });

  /** A position booked by a worker that is then stopped, so the test controls when jobs run. */
  async function openPositionWithoutWorkers(symbol: string, quantity: string) {
    startWorkers();
    const opened = await openPosition("buy", symbol, quantity);
    await idle();
    await Promise.all(runners.map((r) => r.stop()));
    runners = [];
    return opened;
  }
});
