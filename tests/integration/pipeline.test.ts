// Signals become orders: webhook → job → worker → simulator → trade → position, on both
// dialects, with duplicates, the emergency stop, racing workers and a killed worker.
import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import {
  freshApp,
  registerVia,
  rowInStatus,
  sendSignal,
  signalTrade,
  waitFor,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { startRunner } from "#worker/runner.ts";

describe.each(testDialects())("pipeline on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  let admin: string;
  let secret: string;
  const db = () => app.database.db;
  const count = async (table: "signals" | "trades" | "sim_orders" | "positions", where?: [string, string]) => {
    let query = db()
      .selectFrom(table as "signals")
      .select((eb) => eb.fn.countAll<number>().as("n"));
    if (where) query = query.where(where[0] as "id", "=", where[1]);
    return Number((await query.executeTakeFirst())!.n);
  };
  const webhook = (body: Record<string, unknown>) => sendSignal(app, secret, body);

  beforeAll(async () => {
    admin = (await registerVia(app, "pipe_admin")).cookie;
    secret = await webhookSecret(app, admin);
    await new SimulatorAdapter(db()).ensureAccount();
  });
  beforeEach(async () => {
    for (const table of ["jobs", "trades", "positions", "sim_orders", "signals"] as const)
      await db().deleteFrom(table).execute();
    await db().deleteFrom("sim_positions").execute();
    await setPrice(db(), "BTC-PERP", "100000");
    await setPrice(db(), "ETH-PERP", "3000");
  });

  test("webhook → order → trade → position, and a sell that closes it", async () => {
    const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "w1", pollMs: 5 });
    try {
      const response = await webhook({ action: "buy", symbol: "ETH-PERP", quantity: "0.5", order_type: "market" });
      const { signalId } = (await response.json()) as { signalId: string };
      const trade = await signalTrade(app, signalId);
      expect(trade).toMatchObject({ symbol: "ETH-PERP", side: "buy", source: "signal", exchange: "simulator" });
      expect(Number(trade.executed_quantity)).toBe(0.5);
      expect(Number(trade.executed_price)).toBeGreaterThanOrEqual(3000); // slippage pays up
      expect(Number(trade.fee)).toBeGreaterThan(0);
      const signal = await db().selectFrom("signals").selectAll().where("id", "=", signalId).executeTakeFirstOrThrow();
      expect(signal).toMatchObject({ status: "executed", processed: 1 });
      const position = await db()
        .selectFrom("positions")
        .selectAll()
        .where("status", "=", "open")
        .executeTakeFirstOrThrow();
      expect(position).toMatchObject({
        symbol: "ETH-PERP",
        side: "long",
        entry_trade_id: trade.id,
        signal_id: signalId,
      });
      expect(JSON.parse(position.advanced_controls!)).toMatchObject({
        stopLossOffset: 0.005,
        breakEven: true,
        trailingStop: { activation: 0.012, execute: 0.006 },
      });

      await setPrice(db(), "ETH-PERP", "3100");
      await webhook({ action: "sell", symbol: "ETH-PERP", quantity: "0.5", order_type: "market", strategy: "exit" });
      const closed = await rowInStatus(app, "positions", position.id, "closed");
      expect(Number(closed.remaining_quantity)).toBe(0);
      expect(Number(closed.realized_pnl)).toBeGreaterThan(40); // ~ (3100 - 3000) × 0.5 less slippage
      const logs = await db().selectFrom("activity_logs").select("message").where("type", "=", "trade").execute();
      expect(logs.filter((l) => l.message.startsWith("Order filled on simulator"))).toHaveLength(2);
    } finally {
      await runner.stop();
    }
  });

  test("a duplicate alert gives one order", async () => {
    const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "w1", pollMs: 5 });
    try {
      const body = {
        action: "buy",
        symbol: "BTC-PERP",
        quantity: "0.001",
        order_type: "market",
        timestamp: new Date().toISOString(),
      };
      await Promise.all([webhook(body), webhook(body), webhook(body)]);
      await waitFor(
        "trade executed",
        async () =>
          (await count("trades")) === 1 &&
          (await db().selectFrom("jobs").select("status").executeTakeFirst())?.status === "completed",
      );
      await Bun.sleep(100);
      expect(await count("signals")).toBe(1);
      expect(await count("sim_orders")).toBe(1);
      expect(await count("trades")).toBe(1);
    } finally {
      await runner.stop();
    }
  });

  test("the emergency stop blocks every source until reset", async () => {
    const stop = await app.fetch("/api/emergency-stop", { method: "POST", cookie: admin });
    expect(stop.status).toBe(200);
    const signal = await webhook({ action: "buy", symbol: "BTC-PERP", quantity: "0.001", order_type: "market" });
    expect((await signal.json()).status).toBe("skipped");
    const manual = await app.fetch("/api/trades", {
      method: "POST",
      cookie: admin,
      json: { symbol: "BTC-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "0.001" },
    });
    expect(manual.status).toBe(409);
    expect((await manual.json()).error).toBe("Emergency stop is active: no new positions are opened until it is reset");
    // A manual order queued before the stop is not sent either.
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin });
    const queued = await app.fetch("/api/trades", {
      method: "POST",
      cookie: admin,
      json: { symbol: "BTC-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "0.001" },
    });
    expect(queued.status).toBe(201);
    await app.fetch("/api/emergency-stop", { method: "POST", cookie: admin });
    const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "w1", pollMs: 5 });
    await Bun.sleep(300);
    await runner.stop();
    expect(await count("sim_orders")).toBe(0);
    const job = await db().selectFrom("jobs").selectAll().where("task", "=", "place-order").executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: "cancelled", last_error: "Emergency stop" });
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin });
  });

  test("manual orders: validation messages, then the same job path", async () => {
    const bad = await app.fetch("/api/trades", {
      method: "POST",
      cookie: admin,
      json: { symbol: "BTC-PERP", side: "buy", orderType: "limit", amountType: "quantity", quantity: "0.01" },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      success: false,
      error: "Price must be a positive number greater than 0 for limit orders",
      field: "price",
    });
    const zero = await app.fetch("/api/trades", {
      method: "POST",
      cookie: admin,
      json: { symbol: "BTC-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "0" },
    });
    expect((await zero.json()).error).toBe("Quantity must be a positive number greater than 0");
    const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "w1", pollMs: 5 });
    try {
      const placed = await app.fetch("/api/trades", {
        method: "POST",
        cookie: admin,
        json: {
          symbol: "BTC-PERP",
          side: "sell",
          orderType: "market",
          amountType: "usd",
          quantity: "500",
          status: "pending",
          source: "manual",
          signalData: { leverage: 5, margin_type: "isolated" },
        },
      });
      expect(placed.status).toBe(201);
      const { trade } = (await placed.json()) as {
        trade: { id: string; quantity: string; leverage: number; marginType: string };
      };
      expect(trade).toMatchObject({ quantity: "0.005", leverage: 5, marginType: "isolated" });
      const done = await waitFor("manual trade executed", async () =>
        db()
          .selectFrom("trades")
          .selectAll()
          .where("id", "=", trade.id)
          .where("status", "=", "executed")
          .executeTakeFirst(),
      );
      expect(done.source).toBe("manual");
      const position = await db()
        .selectFrom("positions")
        .selectAll()
        .where("status", "=", "open")
        .executeTakeFirstOrThrow();
      expect(position).toMatchObject({ side: "short", leverage: 5, margin_type: "isolated", source: "manual" });
    } finally {
      await runner.stop();
    }
  });

  test("two workers racing over 500 jobs run each exactly once", async () => {
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) {
      const response = await webhook({
        action: i % 2 ? "sell" : "buy",
        symbol: "BTC-PERP",
        quantity: "0.0001",
        order_type: "market",
        id: `race-${now}-${i}`,
      });
      expect(response.status).toBe(200);
      ids.push(((await response.json()) as { signalId: string }).signalId);
    }
    const runners = ["racer-a", "racer-b"].map((workerId) =>
      startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId, pollMs: 2, concurrency: 4 }),
    );
    try {
      await waitFor(
        "all jobs done",
        async () => {
          const open = await db()
            .selectFrom("jobs")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("status", "not in", ["completed", "failed", "cancelled"])
            .executeTakeFirst();
          return Number(open!.n) === 0;
        },
        120_000,
      );
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
    }
    const jobs = await db().selectFrom("jobs").select(["status", "attempts", "locked_by", "last_error"]).execute();
    expect(jobs).toHaveLength(500);
    const retries = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "%will retry%")
      .execute();
    expect(retries).toEqual([]);
    expect(jobs.filter((j) => !(j.status === "completed" && Number(j.attempts) === 1))).toEqual([]);
    const open = await db()
      .selectFrom("positions")
      .select("id")
      .where("status", "=", "open")
      .where("symbol", "=", "BTC-PERP")
      .execute();
    expect(open.length).toBeLessThanOrEqual(1);
    expect(jobs.every((j) => j.status === "completed" && Number(j.attempts) === 1)).toBe(true);
    expect(await count("sim_orders")).toBe(500);
    expect(await count("trades")).toBe(500);
    const perOrder = await db().selectFrom("sim_orders").select(["client_order_id"]).execute();
    expect(new Set(perOrder.map((o) => o.client_order_id)).size).toBe(500);
  }, 180_000);

  test.each(["after-claim", "after-place"])(
    "a worker killed (SIGKILL) %s leaves exactly one order after restart",
    async (moment) => {
      const response = await webhook({ action: "buy", symbol: "BTC-PERP", quantity: "0.002", order_type: "market" });
      const { signalId } = (await response.json()) as { signalId: string };
      const child = Bun.spawn(["bun", "tests/fixtures/crash-worker.ts", app.database.url, moment], {
        stdout: "inherit",
        stderr: "inherit",
      });
      const code = await child.exited;
      expect(child.signalCode).toBe("SIGKILL");
      expect(code).not.toBe(0);
      expect(await count("sim_orders")).toBe(moment === "after-place" ? 1 : 0);
      const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "survivor", pollMs: 5 });
      try {
        // The dead worker's lease (1.5 s) expires; the survivor reconciles by client order id.
        const trade = await signalTrade(app, signalId);
        expect(trade.client_order_id).toMatch(/^pd-[0-9a-f-]{36}$/);
      } finally {
        await runner.stop();
      }
      expect(await count("sim_orders")).toBe(1);
      expect(await count("trades")).toBe(1);
      const job = await db().selectFrom("jobs").selectAll().executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: "completed", attempts: 2 });
    },
    60_000,
  );
});
