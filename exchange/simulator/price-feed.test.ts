import { beforeEach, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { BUILTIN_PRODUCTS } from "#app/core/products.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";
import {
  COINBASE_PUBLIC_BASE,
  type FetchLike,
  type PriceTick,
  createPriceFeed,
  createPublicPriceSource,
  createRandomWalk,
  fetchPublicPrices,
  getPrice,
  setPrice,
  startPriceFeed,
} from "./price-feed.ts";

const onTick = (value: string, tick: string) => D(value).mod(tick).eq(0);

/** A fake of Coinbase's public product list: each asked-for id with the given price; records the URLs. */
function fakeFetch(prices: Record<string, unknown>) {
  const urls: string[] = [];
  const impl: FetchLike = async (url) => {
    urls.push(url);
    const ids = new URL(url).searchParams.getAll("product_ids");
    const products = ids.filter((id) => id in prices).map((id) => ({ product_id: id, price: prices[id] }));
    return { ok: true, status: 200, json: async () => ({ products, num_products: products.length }) };
  };
  return { impl, urls };
}

const PUBLIC = { "BTC-USD": "97123.456", "ETH-USD": "3456.789", "SOL-USD": "181.2345", "XRP-USD": "2.34567" };
const PUBLIC_ROUNDED = { "BTC-PERP": "97123.5", "ETH-PERP": "3456.79", "SOL-PERP": "181.235", "XRP-PERP": "2.3457" };

const offline = () => {
  let calls = 0;
  const impl: FetchLike = async () => {
    calls++;
    throw new TypeError("fetch failed: getaddrinfo ENOTFOUND api.coinbase.com");
  };
  return { impl, calls: () => calls };
};

describe("random walk", () => {
  test("the same seed gives the same path; another seed another path", () => {
    const path = (seed: number) => {
      const walk = createRandomWalk(seed);
      const out: string[] = [];
      let previous: string | null = null;
      for (let i = 0; i < 50; i++) out.push((previous = walk.next("BTC-PERP", previous)));
      return out;
    };
    expect(path(42)).toEqual(path(42));
    expect(path(42)).not.toEqual(path(43));
    expect(new Set(path(42)).size).toBeGreaterThan(10); // it moves
  });

  test("each symbol's path depends only on the seed, not on how calls interleave", () => {
    const a = createRandomWalk(7);
    const b = createRandomWalk(7);
    const alone = [a.next("ETH-PERP"), a.next("ETH-PERP", "3400"), a.next("ETH-PERP", "3400")];
    b.next("SOL-PERP");
    const first = b.next("ETH-PERP");
    b.next("BTC-PERP");
    b.next("XRP-PERP");
    expect([first, b.next("ETH-PERP", "3400"), b.next("ETH-PERP", "3400")]).toEqual(alone);
  });

  test("starts at the reference price, steps within the volatility, lands on the tick, stays > 0", () => {
    const walk = createRandomWalk(12345);
    for (const spec of BUILTIN_PRODUCTS) {
      let previous: string | null = null;
      for (let i = 0; i < 200; i++) {
        const base = previous ?? spec.referencePrice;
        const next = walk.next(spec.symbol, previous);
        expect(onTick(next, spec.quoteIncrement), `${spec.symbol} ${next}`).toBe(true);
        expect(D(next).gt(0)).toBe(true);
        const bound = D(base).times(spec.volatility).plus(D(spec.quoteIncrement).div(2));
        expect(D(next).minus(base).abs().lte(bound), `${spec.symbol}: ${base} -> ${next}`).toBe(true);
        previous = next;
      }
    }
    // A price of one tick cannot walk to zero or below.
    for (let i = 0; i < 20; i++) expect(D(walk.next("XRP-PERP", "0.0001")).gte("0.0001")).toBe(true);
    expect(() => walk.next("DOGE-PERP")).toThrow("Unknown symbol DOGE-PERP");
  });
});

describe("Coinbase public prices (fake fetch, never the network)", () => {
  test("reads every perp's spot reference in one request and rounds it to our tick", async () => {
    const { impl, urls } = fakeFetch(PUBLIC);
    expect(await fetchPublicPrices(impl)).toEqual(PUBLIC_ROUNDED);
    expect(urls).toEqual([
      `${COINBASE_PUBLIC_BASE}?product_ids=BTC-USD&product_ids=ETH-USD&product_ids=SOL-USD&product_ids=XRP-USD`,
    ]);
    expect(COINBASE_PUBLIC_BASE).toBe("https://api.coinbase.com/api/v3/brokerage/market/products");
  });

  test("a product the answer leaves out, or prices at <= 0, has no price; the others do", async () => {
    const { "XRP-PERP": _xrp, "ETH-PERP": _eth, ...rest } = PUBLIC_ROUNDED;
    expect(await fetchPublicPrices(fakeFetch({ ...PUBLIC, "XRP-USD": undefined, "ETH-USD": "-1" }).impl)).toEqual(rest);
  });

  test("any failure gives null: offline, HTTP error, bad body, nothing priced, timeout", async () => {
    expect(await fetchPublicPrices(offline().impl)).toBeNull();
    expect(await fetchPublicPrices(async () => ({ ok: false, status: 503, json: async () => ({}) }))).toBeNull();
    expect(await fetchPublicPrices(async () => ({ ok: true, status: 200, json: async () => "not json" }))).toBeNull();
    expect(await fetchPublicPrices(fakeFetch({}).impl)).toBeNull();
    expect(await fetchPublicPrices(fakeFetch({ "BTC-USD": "0", "ETH-USD": "abc" }).impl)).toBeNull();

    let aborted = 0;
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => {
          aborted++;
          reject(new Error("aborted"));
        });
      });
    const started = Date.now();
    expect(await fetchPublicPrices(hanging, { timeoutMs: 30 })).toBeNull();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(aborted).toBe(1);
  });

  test("after a failure the source waits 60 s before asking again", async () => {
    let now = 1_000_000;
    const net = offline();
    const source = createPublicPriceSource({ fetchImpl: net.impl, now: () => now });
    expect(await source.get()).toBeNull();
    const afterFirst = net.calls();
    expect(afterFirst).toBe(1);
    now += 59_999;
    expect(await source.get()).toBeNull();
    expect(net.calls()).toBe(afterFirst); // not asked
    now += 1;
    expect(await source.get()).toBeNull();
    expect(net.calls()).toBe(afterFirst * 2);
  });
});

describe.each(testDialects())("price feed on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  beforeEach(async () => {
    await fresh.db.deleteFrom("market_prices").execute();
  });

  test("setPrice inserts then updates (upsert); getPrice reads it back normalised", async () => {
    const db = fresh.db;
    expect(await getPrice(db, "BTC-PERP")).toBeNull();
    await setPrice(db, "BTC-PERP", "95000.10", "test");
    expect(await getPrice(db, "BTC-PERP")).toMatchObject({
      symbol: "BTC-PERP",
      price: "95000.1",
      bid: null,
      ask: null,
      source: "test",
    });
    await setPrice(db, "BTC-PERP", "95001.5", "coinbase", { bid: "95001.4", ask: "95001.6", at: 1_893_456_000_123 });
    expect(await getPrice(db, "BTC-PERP")).toEqual({
      symbol: "BTC-PERP",
      price: "95001.5",
      bid: "95001.4",
      ask: "95001.6",
      source: "coinbase",
      updatedAt: 1_893_456_000_123,
    });
    const rows = await db.selectFrom("market_prices").selectAll().execute();
    expect(rows).toHaveLength(1);
    await expect(setPrice(db, "BTC-PERP", "0")).rejects.toThrow("price must be a decimal number > 0");
    await expect(setPrice(db, "BTC-PERP", "abc")).rejects.toThrow("price must be a decimal number > 0");
  });

  test("offline: a tick walks from the last stored price (reference when none) and stores all four", async () => {
    const db = fresh.db;
    await setPrice(db, "BTC-PERP", "50000", "test");
    const net = offline();
    const ticks: PriceTick[][] = [];
    const now = 5_000_000;
    const feed = createPriceFeed(db, {
      seed: 99,
      fetchImpl: net.impl,
      now: () => now,
      onTick: (t) => void ticks.push(t),
    });
    const first = await feed.tick();
    expect(first.map((t) => t.symbol)).toEqual(["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"]);
    expect(first.every((t) => t.source === "random-walk")).toBe(true);
    const btc = first[0]!.price;
    expect(D(btc).minus(50000).abs().lte(D(50000).times("0.0008").plus("0.05"))).toBe(true);
    // the others start at their reference price
    const eth = first[1]!.price;
    expect(D(eth).minus(3400).abs().lte(D(3400).times("0.001").plus("0.005"))).toBe(true);
    expect(ticks).toEqual([first]);
    for (const t of first)
      expect(await getPrice(db, t.symbol)).toMatchObject({ price: t.price, source: "random-walk" });
    expect(net.calls()).toBe(1);

    // The same path as a fresh walk with the same seed, from the stored prices.
    const walk = createRandomWalk(99);
    expect(btc).toBe(walk.next("BTC-PERP", "50000"));
    const second = await feed.tick();
    expect(net.calls()).toBe(1); // within 60 s of the failure: not asked again
    expect(second[0]!.price).toBe(walk.next("BTC-PERP", btc));
  });

  test("after public prices were seen, a failed fetch writes nothing (prices go stale) and never switches to the walk", async () => {
    const db = fresh.db;
    const { impl } = fakeFetch(PUBLIC);
    let up = true;
    const net = offline();
    const feed = createPriceFeed(db, {
      seed: 7,
      fetchImpl: (url, init) => (up ? impl(url, init) : net.impl(url, init)),
    });
    expect((await feed.tick()).every((t) => t.source === "coinbase")).toBe(true);
    const before = await getPrice(db, "BTC-PERP");
    up = false;
    expect(await feed.tick()).toEqual([]);
    expect(await feed.tick()).toEqual([]);
    expect(net.calls()).toBe(2); // asked again on every tick, not blocked for 60 s
    expect(await getPrice(db, "BTC-PERP")).toEqual(before);
    up = true;
    expect((await feed.tick()).map((t) => t.source)).toEqual(["coinbase", "coinbase", "coinbase", "coinbase"]);
  });

  test("a product missing from the public answer gets no tick; the others do", async () => {
    const db = fresh.db;
    const { impl } = fakeFetch({ ...PUBLIC, "SOL-USD": undefined });
    const feed = createPriceFeed(db, { seed: 1, fetchImpl: impl });
    expect((await feed.tick()).map((t) => t.symbol)).toEqual(["BTC-PERP", "ETH-PERP", "XRP-PERP"]);
    expect(await getPrice(db, "SOL-PERP")).toBeNull();
  });

  test("online: public prices are stored with source coinbase", async () => {
    const db = fresh.db;
    const { impl } = fakeFetch(PUBLIC);
    const feed = createPriceFeed(db, { seed: 1, fetchImpl: impl });
    const ticks = await feed.tick();
    expect(Object.fromEntries(ticks.map((t) => [t.symbol, t.price]))).toEqual(PUBLIC_ROUNDED);
    expect(ticks.every((t) => t.source === "coinbase")).toBe(true);
    expect(await getPrice(db, "SOL-PERP")).toMatchObject({ price: "181.235", source: "coinbase" });
  });

  test("startPriceFeed ticks on its interval until stopped", async () => {
    const db = fresh.db;
    const ticks: PriceTick[][] = [];
    const stop = startPriceFeed(db, {
      intervalMs: 5,
      usePublicPrices: false,
      seed: 3,
      onTick: (t) => void ticks.push(t),
    });
    const deadline = Date.now() + 5000;
    while (ticks.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await stop();
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    const count = ticks.length;
    const last = ticks[count - 1]!;
    for (const t of last) expect((await getPrice(db, t.symbol))!.price).toBe(t.price);
    await new Promise((r) => setTimeout(r, 30));
    expect(ticks.length).toBe(count); // stopped means stopped
  });
});
