// Every Coinbase perpetual (issue 25, docs/decisions/051-every-coinbase-perpetual.md), on both
// dialects, against the fake Coinbase listing a DOGE perpetual the app does not know built in
// (and an INTX perpetual, a dated future and a closed perpetual it must not take):
// - before Coinbase's list is read, a DOGE alert is refused (400), as offline;
// - an admin reads the list (API and the no-JS Market Data form; a trader may not); a failed
//   read changes nothing and says why;
// - the simulator then prices DOGE-PERP at Coinbase's public price and trades it from a
//   TradingView ticker (BINANCE:DOGEUSDT.P);
// - live on Coinbase, a DOGEUSD alert becomes whole DOP-20DEC30-CDE contracts, and the close
//   leaves the exchange and the app both flat.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { isKnownSymbol, listSymbols, setCatalog } from "#app/core/products.ts";
import { PRODUCT_CATALOG_SETTING, readStoredCatalog, startCatalogSync } from "#exchange/coinbase/catalog.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { createPriceFeed, getPrice } from "#exchange/simulator/price-feed.ts";
import { FAKE_MORE_FUTURES, makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { freshApp, openPositionOn, registerVia, sendSignal, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";
import { startRunner } from "#worker/runner.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key], extraProducts: FAKE_MORE_FUTURES });
const BUILT_IN = ["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"];

afterAll(() => setCatalog([]));

describe.each(testDialects())("every Coinbase perpetual on the simulator, %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const db = () => app.database.db;
  let admin: string;
  let trader: string;
  let secret: string;
  beforeAll(async () => {
    setCatalog([]);
    admin = (await registerVia(app, "cat_admin")).cookie;
    trader = (await registerVia(app, "cat_trader")).cookie;
    secret = await webhookSecret(app, admin);
    await new SimulatorAdapter(db()).ensureAccount();
  });

  test("before Coinbase's list is read, a DOGE alert is refused with the symbols there are", async () => {
    expect(listSymbols()).toEqual(BUILT_IN);
    const response = await sendSignal(app, secret, { action: "buy", symbol: "BINANCE:DOGEUSDT.P", quantity: "1000" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      success: false,
      field: "symbol",
      error: "symbol BINANCE:DOGEUSDT.P is not supported (BTC-PERP, ETH-PERP, SOL-PERP, XRP-PERP)",
    });
  });

  test("a trader may not read the list; a failed read says why and changes nothing", async () => {
    const refused = await app.fetch("/api/market/products/refresh", { method: "POST", cookie: trader });
    expect(refused.status).toBe(403);
    msw.fake.fail({ method: "GET", path: "/market/products", status: 503 });
    const failed = await app.fetch("/api/market/products/refresh", { method: "POST", cookie: admin });
    expect(failed.status).toBe(502);
    expect(await failed.json()).toMatchObject({
      error: expect.stringContaining("Products could not be read from Coinbase: Coinbase answered HTTP 503"),
    });
    expect(await readStoredCatalog(db())).toBeNull();
    expect(listSymbols()).toEqual(BUILT_IN);
  });

  test("an admin reads the list: the perpetuals are stored and logged, the others said why not", async () => {
    const response = await app.fetch("/api/market/products/refresh", { method: "POST", cookie: admin });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      success: true,
      products: 5,
      added: ["BTC-PERP", "DOGE-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"],
      removed: [],
      message: "Read 5 perpetuals from Coinbase; new: BTC-PERP, DOGE-PERP, ETH-PERP, SOL-PERP, XRP-PERP",
      catalog: { total: 5, builtIn: 4, listed: 5 },
    });
    expect((body.skipped as { productId: string }[]).map((s) => s.productId).sort()).toEqual([
      "BTC-PERP-INTX",
      "LCP-20DEC30-CDE",
    ]);
    expect(listSymbols()).toEqual([...BUILT_IN, "DOGE-PERP"]);
    const stored = await readStoredCatalog(db());
    expect(stored?.products.find((p) => p.symbol === "DOGE-PERP")).toMatchObject({
      coinbaseProductId: "DOP-20DEC30-CDE",
      coinbaseContractSize: "1000",
      baseIncrement: "1000",
      quoteIncrement: "0.00001",
    });
    const line = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Products read from Coinbase%")
      .executeTakeFirstOrThrow();
    expect(line.message).toBe(
      "Products read from Coinbase by cat_admin: 5 perpetuals, new: BTC-PERP, DOGE-PERP, ETH-PERP, SOL-PERP, XRP-PERP",
    );
  });

  test("the simulator prices DOGE-PERP at Coinbase's public price and trades it from a TradingView ticker", async () => {
    const ticks = await createPriceFeed(db(), { seed: 1 }).tick();
    expect(ticks.find((t) => t.symbol === "DOGE-PERP")).toEqual({
      symbol: "DOGE-PERP",
      price: "0.38",
      source: "coinbase",
    });
    expect(await getPrice(db(), "DOGE-PERP")).toMatchObject({ price: "0.38", source: "coinbase" });

    const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "cat-w1", pollMs: 5 });
    try {
      const response = await sendSignal(app, secret, {
        action: "buy",
        symbol: "BINANCE:DOGEUSDT.P",
        quantity: "2000",
        order_type: "market",
      });
      expect(response.status).toBe(200);
      const position = await openPositionOn(app, "DOGE-PERP");
      expect(D(position.quantity).eq(2000)).toBe(true);
      expect(D(position.entry_price).minus("0.38").abs().lte("0.001")).toBe(true);
    } finally {
      await runner.stop();
    }
    const products = (await (await app.fetch("/api/market/products", { cookie: trader })).json()) as {
      productId: string;
      price: string | null;
    }[];
    expect(products.find((p) => p.productId === "DOGE-PERP")).toMatchObject({ price: "0.38" });
  });

  test("Market Data: the line says where the list comes from; the no-JS form reads it again", async () => {
    const page = await (await app.fetch("/market-data", { cookie: admin })).text();
    expect(page).toContain("5 perpetuals: Coinbase&#x27;s list, read");
    expect(page).toContain("Read products from Coinbase");
    const traderPage = await (await app.fetch("/market-data", { cookie: trader })).text();
    expect(traderPage).not.toContain("Read products from Coinbase");
    const posted = await app.fetch("/market-data?index", {
      method: "POST",
      cookie: admin,
      form: { intent: "refresh-products" },
    });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain("Read 5 perpetuals from Coinbase; nothing new");
    const asTrader = await app.fetch("/market-data", {
      method: "POST",
      cookie: trader,
      form: { intent: "refresh-products" },
    });
    expect(asTrader.status).toBe(403);
  });

  test("the sync loads the stored list into a process that lost it, and says a failed Coinbase read once", async () => {
    setCatalog([]);
    const errors: string[] = [];
    const stop = await startCatalogSync(db(), {
      refreshFromCoinbase: true,
      refreshEveryMs: 20,
      fetchImpl: async () => {
        throw new TypeError("fetch failed: getaddrinfo ENOTFOUND api.coinbase.com");
      },
      onError: (message) => void errors.push(message),
    });
    try {
      expect(isKnownSymbol("DOGE-PERP")).toBe(true);
      await waitFor("a failed read reported", async () => errors.length > 0);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      stop();
    }
    expect(errors).toEqual([
      "Coinbase's product list could not be read (fetch failed: getaddrinfo ENOTFOUND api.coinbase.com); trading 5 known products",
    ]);
    expect(isKnownSymbol("DOGE-PERP")).toBe(true);
  });

  test("a product Coinbase stops listing stays known (its position can still close)", async () => {
    msw.fake.state.products.delete("DOP-20DEC30-CDE");
    try {
      const response = await app.fetch("/api/market/products/refresh", { method: "POST", cookie: admin });
      expect(await response.json()).toMatchObject({ products: 4, removed: ["DOGE-PERP"] });
      expect(isKnownSymbol("DOGE-PERP")).toBe(true);
      const stored = await db()
        .selectFrom("settings")
        .select("key")
        .where("key", "=", PRODUCT_CATALOG_SETTING)
        .execute();
      expect(stored).toHaveLength(1);
    } finally {
      msw.fake.state.products.set("DOP-20DEC30-CDE", { ...FAKE_MORE_FUTURES[0]! });
    }
  });
});

describe.each(testDialects())("every Coinbase perpetual live on Coinbase, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, "catlive");
  const db = () => live.db();
  beforeAll(async () => {
    setCatalog([]);
    const response = await live.app.fetch("/api/market/products/refresh", { method: "POST", cookie: live.admin });
    expect(response.status).toBe(200);
  });

  test("a DOGEUSD alert becomes whole DOP contracts; the close leaves Coinbase and the app flat", async () => {
    const before = msw.fake.requestsTo("/orders", "POST").length;
    const response = await sendSignal(live.app, live.secret, {
      action: "buy",
      symbol: "DOGEUSD",
      quantity: "3400",
      order_type: "market",
    });
    expect(response.status).toBe(200);
    const position = await openPositionOn(live.app, "DOGE-PERP");
    const sent = msw.fake.requestsTo("/orders", "POST").slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ product_id: "DOP-20DEC30-CDE" });
    // 3,400 DOGE in contracts of 1,000: 3 whole contracts, the rest is not sent.
    expect(JSON.stringify(sent[0]!.body)).toContain('"base_size":"3"');
    expect(D(position.quantity).eq(3000)).toBe(true);
    expect(msw.fake.state.positions.get("DOP-20DEC30-CDE")?.contracts.toString()).toBe("3");

    const close = await live.app.fetch("/api/positions/DOGE-PERP/close", { method: "POST", cookie: live.admin });
    expect(close.status).toBeLessThan(300);
    await waitFor(
      "DOGE position closed",
      async () =>
        (await db()
          .selectFrom("positions")
          .select("id")
          .where("symbol", "=", "DOGE-PERP")
          .where("status", "=", "open")
          .executeTakeFirst()) === undefined,
      15_000,
    );
    const left = msw.fake.state.positions.get("DOP-20DEC30-CDE");
    expect(left === undefined || left.contracts.eq(0)).toBe(true);
  });
});
