// "Use Coinbase contract sizes" on the simulator (docs/decisions/025-contracts-and-rounding.md),
// on both dialects: the Exchanges screen's switch is a plain form post (no JavaScript),
// admin-only; off by default without credentials, on by default once Coinbase credentials are
// saved; when on, paper signals and take-profits are sized in whole Coinbase contracts exactly
// as live (2 BIP contracts: TP1 0.01, TP2 skipped, TP3 0.01; "contracts" 1 XRP = 500 XRP);
// when off, the simulator's own increments (1 contract = 1 XRP).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { COINBASE_CONTRACT_SIZES_SETTING, simulatorUsesCoinbaseContracts } from "#exchange/trading-product.ts";
import { addExchangeConnection as saveConnection } from "#app/services/exchange-connections.server.ts";
import { deleteSetting, getSetting } from "#db/queries/settings.ts";
import { saveTradingConfig } from "#db/queries/trading-state.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { freshApp, jobsIdle, registerVia, sendSignal, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { CONTRACT_TEST_CONFIG } from "#tests/setup/fixtures.ts";
import { processPriceTicks } from "#worker/monitor/price-loop.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

const key = makeCdpKey("ec");
useCoinbaseFake({ cdpKeys: [key] });

const CONFIG = CONTRACT_TEST_CONFIG;

describe.each(testDialects())("simulator with Coinbase contract sizes on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  let admin: string;
  let trader: string;
  let secret: string;
  let runner: Runner | null = null;
  const db = () => app.database.db;

  const post = (form: Record<string, string>, cookie = admin) =>
    app.fetch("/exchanges", { method: "POST", cookie, form });
  const idle = () => jobsIdle(app);
  const open = async (symbol: string, quantity: string) => {
    expect(
      (
        await sendSignal(app, secret, {
          action: "buy",
          symbol,
          quantity,
          order_type: "market",
          id: `s-${Math.random()}`,
        })
      ).status,
    ).toBe(200);
    return waitFor(
      `${symbol} open`,
      () =>
        db()
          .selectFrom("positions")
          .selectAll()
          .where("symbol", "=", symbol)
          .where("status", "=", "open")
          .executeTakeFirst(),
      15_000,
      10,
    );
  };
  const tick = async (symbol: string, price: string) => {
    await setPrice(db(), symbol, price, "test");
    await processPriceTicks(db(), [{ symbol, price }]);
    await idle();
  };

  beforeAll(async () => {
    admin = (await registerVia(app, "simc_admin")).cookie;
    trader = (await registerVia(app, "simc_trader", "secret123", "trader")).cookie;
    secret = await webhookSecret(app, admin);
    await new SimulatorAdapter(db()).ensureAccount();
    runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "simc-w1", pollMs: 3 });
  });
  afterAll(async () => {
    await runner?.stop();
  });
  beforeEach(async () => {
    for (const table of ["trades", "jobs", "positions", "sim_orders", "signals", "sim_positions", "exchanges"] as const)
      await db().deleteFrom(table).execute();
    await db().updateTable("balances").set({ available: "100000", hold: "0" }).execute();
    await deleteSetting(db(), COINBASE_CONTRACT_SIZES_SETTING);
    await saveTradingConfig(db(), CONFIG);
    await setPrice(db(), "BTC-PERP", "95000", "test");
    await setPrice(db(), "XRP-PERP", "2", "test");
  });

  test("the switch: a plain form post, admin-only; off without credentials, on by default once they are saved", async () => {
    expect(await simulatorUsesCoinbaseContracts(db(), 0)).toBe(false);
    const page = await (await app.fetch("/exchanges", { cookie: admin })).text();
    expect(page).toContain("Use Coinbase contract sizes");
    expect(page).toContain('name="intent" value="contract-sizes"');
    expect(page).toContain('data-testid="contract-sizes-submit"');
    expect(page).toContain("Switch on");
    // A trader sees it, may not change it.
    const traderPage = await (await app.fetch("/exchanges", { cookie: trader })).text();
    expect(traderPage).toContain("Use Coinbase contract sizes");
    expect(traderPage).not.toContain('data-testid="contract-sizes-submit"');
    expect((await post({ intent: "contract-sizes", value: "true" }, trader)).status).toBe(403);
    expect(await getSetting(db(), COINBASE_CONTRACT_SIZES_SETTING)).toBeNull();

    const on = await post({ intent: "contract-sizes", value: "true" });
    expect(on.status).toBe(302);
    expect(await getSetting(db(), COINBASE_CONTRACT_SIZES_SETTING)).toBe(true);
    expect(await simulatorUsesCoinbaseContracts(db(), 0)).toBe(true);
    expect(await (await app.fetch("/exchanges", { cookie: admin })).text()).toContain("Switch off");
    const line = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", 'Simulator: "Use Coinbase contract sizes"%')
      .orderBy("id", "desc")
      .executeTakeFirst();
    expect(line?.message).toBe('Simulator: "Use Coinbase contract sizes" switched on by simc_admin');

    // Not chosen: the default follows saved Coinbase credentials (sandbox: still paper trading).
    await deleteSetting(db(), COINBASE_CONTRACT_SIZES_SETTING);
    await saveConnection(
      db(),
      app.config,
      {
        exchangeName: "COINBASE",
        accountName: "Paper",
        apiKey: key.apiKey,
        apiSecret: key.apiSecret,
        passphrase: null,
        sandbox: true,
        isEnabled: true,
      } as never,
      "simc_admin",
    );
    expect(await simulatorUsesCoinbaseContracts(db(), 0)).toBe(true);
    // An explicit "off" wins over the default.
    expect((await post({ intent: "contract-sizes", value: "false" })).status).toBe(302);
    expect(await simulatorUsesCoinbaseContracts(db(), 0)).toBe(false);
  });

  test("on: a 2-contract BTC position takes profits in whole 0.01 BTC contracts (1, skipped, 1)", async () => {
    expect((await post({ intent: "contract-sizes", value: "true" })).status).toBe(302);
    const opened = await open("BTC-PERP", "0.0234"); // rounded DOWN to 2 contracts
    expect(D(opened.quantity).toString()).toBe("0.02");
    const entry = D(opened.entry_price);
    for (const pct of ["1.011", "1.021", "1.031"]) await tick("BTC-PERP", entry.times(pct).round(1).toString());
    const closes = await db()
      .selectFrom("trades")
      .select(["quantity", "status"])
      .where("position_id", "=", opened.id)
      .where("reduce_only", "=", 1)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    expect(closes.map((c) => [D(c.quantity).toString(), c.status])).toEqual([
      ["0.01", "executed"],
      ["0.01", "executed"],
    ]);
    const closed = await db().selectFrom("positions").selectAll().where("id", "=", opened.id).executeTakeFirstOrThrow();
    expect(closed.status).toBe("closed");
    expect(JSON.parse(String(closed.rule_state))).toMatchObject({ tpSkipped: [1], failures: {} });
  });

  test("the contracts amount type: 1 = one XPP contract (500 XRP) when on, 1 XRP when off", async () => {
    await saveTradingConfig(db(), {
      ...CONFIG,
      applyAmountControlToSignals: true,
      signalAmountType: "contracts",
      signalAmountValue: "1",
    });
    expect((await post({ intent: "contract-sizes", value: "true" })).status).toBe(302);
    expect(D((await open("XRP-PERP", "7")).quantity).toString()).toBe("500");
    await db().deleteFrom("positions").execute();
    await db().deleteFrom("sim_positions").execute();
    expect((await post({ intent: "contract-sizes", value: "false" })).status).toBe(302);
    expect(D((await open("XRP-PERP", "7")).quantity).toString()).toBe("1");
  });
});
