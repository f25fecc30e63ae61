// Issue 22, "every position can be closed", on the simulator and both databases
// (docs/decisions/039-positions-stay-on-their-exchange.md):
// - one sizing rule: with "Use Coinbase contract sizes" on, a manual BUY 1 SOL-PERP (under one
//   5 SOL contract) is refused before it is queued, naming the minimum, with or without
//   JavaScript; /api/market/products shows the increment and minimum the worker enforces;
// - positions opened before the switch (SOL 1, ETH 0.01, XRP 10) still close on the simulator
//   (Close, the stop-loss, Flatten all), in the simulator's own steps;
// - a close that can send nothing says why on the screen (a position held on an exchange whose
//   smallest order is larger than what remains), instead of "queued".
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { setCoinbaseContractSizes } from "#exchange/trading-product.ts";
import { freshApp, jobsIdle, registerVia, waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { processPriceTicks } from "#worker/monitor/price-loop.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

describe.each(testDialects())("every position can be closed, %s", (dialect) => {
  const app = freshApp(dialect);
  let trader: string;
  let runner: Runner | null = null;
  const db = () => app.database.db;
  const buy = (symbol: string, quantity: string, json = true) =>
    json
      ? app.fetch("/api/trades", {
          method: "POST",
          cookie: trader,
          json: { symbol, side: "buy", orderType: "market", amountType: "quantity", quantity },
        })
      : app.fetch("/manual-trading", {
          method: "POST",
          cookie: trader,
          form: {
            symbol,
            side: "buy",
            orderType: "market",
            amountType: "quantity",
            quantity,
            leverage: "1",
            marginType: "cross",
          },
        });
  const position = (symbol: string) =>
    db()
      .selectFrom("positions")
      .selectAll()
      .where("symbol", "=", symbol)
      .where("status", "=", "open")
      .executeTakeFirst();

  beforeAll(async () => {
    await registerVia(app, "close_admin");
    trader = (await registerVia(app, "close_trader", "secret123", "trader")).cookie;
    await new SimulatorAdapter(db()).ensureAccount();
    for (const [symbol, price] of [
      ["SOL-PERP", "180"],
      ["ETH-PERP", "3400"],
      ["XRP-PERP", "2.2"],
    ] as const)
      await setPrice(db(), symbol, price, "test");
    runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "close-w1", pollMs: 3 });
  });
  afterAll(async () => {
    await runner?.stop();
  });

  test("positions opened before the switch to Coinbase contract sizes close on the simulator; entries under one contract are refused first", async () => {
    // Before the switch: the simulator's own steps.
    for (const [symbol, quantity] of [
      ["SOL-PERP", "1"],
      ["ETH-PERP", "0.01"],
      ["XRP-PERP", "10"],
    ] as const) {
      expect((await buy(symbol, quantity)).status).toBeLessThan(300);
      await waitFor(`${symbol} open`, () => position(symbol), 15_000, 10);
    }
    await jobsIdle(app);
    await setCoinbaseContractSizes(db(), true);

    // The same entry now: refused before it is queued, naming the minimum (API and the no-JS form).
    const refused = await buy("SOL-PERP", "1");
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe(
      "Order size 1 SOL is below the minimum 5 for SOL-PERP (one contract of 5 SOL)",
    );
    const form = await buy("SOL-PERP", "1", false);
    expect(form.status).toBeLessThan(500);
    expect(await db().selectFrom("trades").select("id").where("symbol", "=", "SOL-PERP").execute()).toHaveLength(1);
    // What the worker enforces is what the market data says.
    const products = (await (await app.fetch("/api/market/products", { cookie: trader })).json()) as {
      productId: string;
      baseIncrement: string;
      baseMinSize: string;
    }[];
    expect(products.find((p) => p.productId === "SOL-PERP")).toMatchObject({ baseIncrement: "5", baseMinSize: "5" });

    // Close: SOL 1 (a fifth of a contract) closes on the simulator.
    const close = await app.fetch("/api/positions/SOL-PERP/close", { method: "POST", cookie: trader });
    expect(close.status).toBe(200);
    await waitFor("SOL closed", async () => !(await position("SOL-PERP")), 15_000, 10);
    const closing = await db()
      .selectFrom("trades")
      .select(["status", "executed_quantity", "exchange"])
      .where("symbol", "=", "SOL-PERP")
      .where("reduce_only", "=", 1 as never)
      .executeTakeFirstOrThrow();
    expect(closing.status).toBe("executed");
    expect(D(String(closing.executed_quantity)).eq(1)).toBe(true);

    // The stop-loss closes ETH 0.01 (a tenth of a contract).
    const eth = (await position("ETH-PERP"))!;
    const below = D(String(eth.stop_price)).times("0.99").round(2).toString();
    await setPrice(db(), "ETH-PERP", below, "test");
    await processPriceTicks(db(), [{ symbol: "ETH-PERP", price: below }]);
    await waitFor("ETH stopped out", async () => !(await position("ETH-PERP")), 15_000, 10);

    // Flatten all takes XRP 10 (a fiftieth of a contract): flat.
    const flatten = (await (
      await app.fetch("/api/positions/close-all", { method: "POST", cookie: trader })
    ).json()) as { flat: boolean };
    expect(flatten.flat).toBe(true);
    expect(await db().selectFrom("positions").select("id").where("status", "=", "open").execute()).toEqual([]);
    const sim = await db().selectFrom("sim_positions").select(["symbol", "quantity"]).execute();
    expect(sim.every((p) => D(String(p.quantity)).eq(0))).toBe(true);
  });

  test("a close that can send nothing says why, on the screen", async () => {
    await setCoinbaseContractSizes(db(), false);
    expect((await buy("SOL-PERP", "3")).status).toBeLessThan(300);
    const sol = await waitFor("SOL open", () => position("SOL-PERP"), 15_000, 10);
    await jobsIdle(app);
    // Held by Coinbase (whose smallest SOL order is one 5 SOL contract): 3 SOL cannot be sent there.
    await db().updateTable("positions").set({ exchange: "coinbase" }).where("id", "=", sol.id).execute();
    // The position says so before anyone presses Close (API and the server-rendered screen).
    const views = (await (await app.fetch("/api/positions", { cookie: trader })).json()) as {
      symbol: string;
      closeNote: string | null;
    }[];
    expect(views.find((v) => v.symbol === "SOL-PERP")?.closeNote).toMatch(
      /^3 SOL is less than the smallest order .* takes for SOL-PERP/,
    );
    const page = await (await app.fetch("/positions", { cookie: trader })).text();
    expect(page).toContain("Cannot be closed by an order: 3 SOL is less than the smallest order");
    const close = await app.fetch("/api/positions/SOL-PERP/close", { method: "POST", cookie: trader });
    expect(close.status).toBe(409);
    const error = ((await close.json()) as { error: string }).error;
    expect(error).toMatch(
      /^Nothing sent for SOL-PERP: 3 SOL is less than the smallest order Coinbase takes for SOL-PERP \(5 SOL, in steps of 5\): no order can close it there/,
    );
    expect(
      await db()
        .selectFrom("jobs")
        .select("id")
        .where("task", "=", "close-position")
        .where("payload", "like", `%${sol.id}%`)
        .execute(),
    ).toEqual([]);
    // While Coinbase holds the symbol, a new entry on the active exchange (the simulator) is refused with the reason ...
    const lastTrade = () =>
      db()
        .selectFrom("trades")
        .select(["status", "error_message", "exchange"])
        .where("symbol", "=", "SOL-PERP")
        .orderBy("created_at", "desc")
        .executeTakeFirstOrThrow();
    expect((await buy("SOL-PERP", "2")).status).toBeLessThan(300);
    await waitFor("entry refused", async () => (await lastTrade()).status === "failed", 15_000, 10);
    expect((await lastTrade()).error_message).toBe(
      "SOL-PERP has a position open on coinbase: close it there first (Close on Positions); new positions go to simulator",
    );
    // ... and an exit goes to Coinbase, which is not connected: it fails saying so, nothing is sent elsewhere.
    const sell = await app.fetch("/api/trades", {
      method: "POST",
      cookie: trader,
      json: { symbol: "SOL-PERP", side: "sell", orderType: "market", amountType: "quantity", quantity: "1" },
    });
    expect(sell.status).toBeLessThan(300);
    await waitFor(
      "exit failed",
      async () => (await lastTrade()).status === "failed" && (await lastTrade()).exchange === "coinbase",
      15_000,
      10,
    );
    expect((await lastTrade()).error_message).toMatch(
      /^This position is on coinbase, which is not connected for trading now/,
    );
    expect(D(String((await position("SOL-PERP"))!.remaining_quantity)).eq(3)).toBe(true);
    await db().updateTable("positions").set({ exchange: "simulator" }).where("id", "=", sol.id).execute();
    expect((await app.fetch("/api/positions/SOL-PERP/close", { method: "POST", cookie: trader })).status).toBe(200);
    await waitFor("SOL closed", async () => !(await position("SOL-PERP")), 15_000, 10);
  });
});
