// 1-minute candles (decision 032) on both dialects: open = first, high = max, low = min,
// close = latest tick, numeric comparisons (9.5 < 10.1, 99.5 < 100: the reverse of a string
// comparison), minute boundaries, one statement for a batch, setPrice / setPrices writing
// them, the range reader, Market Data's 24 h reference, retention, and the migration that
// replaced price_history.
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { beforeEach, describe, expect, test } from "vitest";
import { dayChanges, getPrice, setPrice, setPrices } from "#exchange/simulator/price-feed.ts";
import * as candlesMigration from "#db/migrations/2026_11_26_0300_candles.ts";
import { firstOpensSince, listCandles, minuteOf, pruneCandles, recordCandleTicks } from "#db/queries/candles.ts";
import { insertPosition } from "#db/queries/positions.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;
// A minute boundary, fixed so the test never straddles a real one.
const T0 = 1_893_456_000_000;

describe.each(testDialects())("candles on %s", (dialect) => {
  const fresh = freshDatabase(dialect);
  beforeEach(async () => {
    await fresh.db.deleteFrom("candles").execute();
    await fresh.db.deleteFrom("positions").execute();
  });

  const all = (symbol = "XRP-PERP") => listCandles(fresh.db, symbol, { from: 0, to: T0 + 100 * DAY });

  test("open = first, high = max, low = min, close = last; compared as numbers, not strings", async () => {
    // As strings "9.5" > "10.1" and "99.5" > "100": a lexical comparison would keep the wrong ones.
    for (const [i, price] of ["9.5", "10.1", "9.9", "99.5", "100", "9.45", "9.7"].entries()) {
      await recordCandleTicks(fresh.db, [{ symbol: "XRP-PERP", price, at: T0 + 1000 * (i + 1) }]);
    }
    expect(await all()).toEqual([{ time: T0, open: "9.5", high: "100", low: "9.45", close: "9.7", ticks: 7 }]);
  });

  test("a new minute starts a new candle; a late tick never becomes the close", async () => {
    await recordCandleTicks(fresh.db, [{ symbol: "ETH-PERP", price: "3000", at: T0 + 59_999 }]);
    await recordCandleTicks(fresh.db, [{ symbol: "ETH-PERP", price: "3001.5", at: T0 + MINUTE }]);
    await recordCandleTicks(fresh.db, [{ symbol: "ETH-PERP", price: "2999", at: T0 + MINUTE + 30_000 }]);
    // Arrives after, happened before: extends the range but is not the close.
    await recordCandleTicks(fresh.db, [{ symbol: "ETH-PERP", price: "3010", at: T0 + MINUTE + 10_000 }]);
    expect(await all("ETH-PERP")).toEqual([
      { time: T0, open: "3000", high: "3000", low: "3000", close: "3000", ticks: 1 },
      { time: T0 + MINUTE, open: "3001.5", high: "3010", low: "2999", close: "2999", ticks: 3 },
    ]);
  });

  test("one statement for a batch, the same minute twice in it included", async () => {
    await recordCandleTicks(fresh.db, [
      { symbol: "BTC-PERP", price: "95000", at: T0 + 1000 },
      { symbol: "ETH-PERP", price: "3000", at: T0 + 1000 },
      { symbol: "BTC-PERP", price: "94999.99", at: T0 + 2000 },
      { symbol: "BTC-PERP", price: "95000.01", at: T0 + 3000 },
    ]);
    expect(await all("BTC-PERP")).toEqual([
      { time: T0, open: "95000", high: "95000.01", low: "94999.99", close: "95000.01", ticks: 3 },
    ]);
    expect(await all("ETH-PERP")).toHaveLength(1);
    await recordCandleTicks(fresh.db, []); // nothing to write: no statement
  });

  test("setPrice and setPrices store the price and fold it into its candle, in one commit", async () => {
    await setPrice(fresh.db, "SOL-PERP", "180.5", "test", { at: T0 + 5000 });
    await setPrices(fresh.db, [
      { symbol: "SOL-PERP", price: "179.25", source: "test", at: T0 + 6000 },
      { symbol: "XRP-PERP", price: "2.1", source: "test", at: T0 + 6000 },
    ]);
    expect(await getPrice(fresh.db, "SOL-PERP")).toMatchObject({ price: "179.25", updatedAt: T0 + 6000 });
    expect(await all("SOL-PERP")).toEqual([
      { time: T0, open: "180.5", high: "180.5", low: "179.25", close: "179.25", ticks: 2 },
    ]);
    expect(await all("XRP-PERP")).toEqual([{ time: T0, open: "2.1", high: "2.1", low: "2.1", close: "2.1", ticks: 1 }]);
    // A bad price stores nothing (neither the price nor a candle).
    await expect(
      setPrices(fresh.db, [
        { symbol: "XRP-PERP", price: "3", at: T0 + 7000 },
        { symbol: "SOL-PERP", price: "-1", at: T0 + 7000 },
      ]),
    ).rejects.toThrow("price must be a decimal number > 0");
    expect((await all("XRP-PERP"))[0]!.close).toBe("2.1");
    // Inside a caller's transaction it writes in that transaction.
    await fresh.db.transaction().execute((trx) => setPrice(trx, "XRP-PERP", "2.2", "test", { at: T0 + 8000 }));
    expect((await all("XRP-PERP"))[0]).toMatchObject({ high: "2.2", close: "2.2", ticks: 2 });
  });

  test("listCandles: the range, oldest first, the newest `limit` when there are more", async () => {
    await recordCandleTicks(
      fresh.db,
      Array.from({ length: 10 }, (_, i) => ({ symbol: "ETH-PERP", price: String(3000 + i), at: T0 + i * MINUTE + 1 })),
    );
    const range = await listCandles(fresh.db, "ETH-PERP", { from: T0 + 2 * MINUTE + 30_000, to: T0 + 7 * MINUTE });
    // `from` inside a minute includes that minute's candle.
    expect(range.map((c) => c.close)).toEqual(["3002", "3003", "3004", "3005", "3006", "3007"]);
    const newest = await listCandles(fresh.db, "ETH-PERP", { from: T0, to: T0 + DAY, limit: 3 });
    expect(newest.map((c) => c.time)).toEqual([T0 + 7 * MINUTE, T0 + 8 * MINUTE, T0 + 9 * MINUTE]);
    expect(await listCandles(fresh.db, "BTC-PERP", { from: T0, to: T0 + DAY })).toEqual([]);
  });

  test("Market Data's 24 h change: from the first candle's open in the window", async () => {
    const now = T0 + 2 * DAY;
    await recordCandleTicks(fresh.db, [
      { symbol: "ETH-PERP", price: "1", at: now - DAY - MINUTE }, // before the window
      { symbol: "ETH-PERP", price: "3000", at: now - DAY + MINUTE + 1 }, // the reference: the minute's open
      { symbol: "ETH-PERP", price: "3300", at: now - DAY + MINUTE + 2 },
      { symbol: "ETH-PERP", price: "3100", at: now - 5 * MINUTE },
    ]);
    const firsts = await firstOpensSince(fresh.db, ["ETH-PERP", "BTC-PERP"], now - DAY);
    expect(firsts).toEqual(new Map([["ETH-PERP", { bucket: minuteOf(now - DAY + MINUTE), open: "3000" }]]));
    const changes = await dayChanges(
      fresh.db,
      new Map([
        ["ETH-PERP", "3150"],
        ["BTC-PERP", "95000"],
      ]),
      now,
    );
    expect(changes).toEqual(new Map([["ETH-PERP", { change: "5", since: minuteOf(now - DAY + MINUTE) }]]));
  });

  test("retention: older than the configured days goes, never closer than 25 h, and an open position keeps its candles", async () => {
    const now = T0 + 60 * DAY;
    const at = (ago: number) => ({ symbol: "BTC-PERP", price: "95000", at: now - ago });
    await recordCandleTicks(fresh.db, [at(40 * DAY), at(31 * DAY), at(29 * DAY), at(2 * DAY), at(20 * 3_600_000)]);
    expect(await pruneCandles(fresh.db, 30, now)).toBe(2);
    expect(await all("BTC-PERP")).toHaveLength(3);
    // One day configured: 25 h are still kept (the 24 h change reads them).
    expect(await pruneCandles(fresh.db, 1, now)).toBe(2);
    expect((await all("BTC-PERP")).map((c) => c.time)).toEqual([minuteOf(now - 20 * 3_600_000)]);

    // An open position opened 10 days ago keeps everything since (less an hour).
    await fresh.db.deleteFrom("candles").execute();
    await recordCandleTicks(fresh.db, [at(12 * DAY), at(10 * DAY - 30 * MINUTE), at(5 * DAY)]);
    await insertPosition(fresh.db, {
      id: randomUUID(),
      symbol: "ETH-PERP",
      side: "long",
      quantity: "1",
      entryPrice: "3000",
      currentPrice: null,
      entryTradeId: null,
      advancedControls: null,
      leverage: 1,
      marginType: "cross",
      source: "manual",
      signalId: null,
      fees: "0",
    });
    await fresh.db
      .updateTable("positions")
      .set({ created_at: now - 10 * DAY })
      .execute();
    expect(await pruneCandles(fresh.db, 1, now)).toBe(1);
    expect(await all("BTC-PERP")).toHaveLength(2);
  });

  test("the migration replaced price_history: down gives it back from the opens, up copies it into candles", async () => {
    await recordCandleTicks(fresh.db, [
      { symbol: "ETH-PERP", price: "3000", at: T0 + 1 },
      { symbol: "ETH-PERP", price: "3100", at: T0 + 2 },
    ]);
    await candlesMigration.down(fresh.db);
    const kept = await (fresh.db as Kysely<any>).selectFrom("price_history").selectAll().execute();
    expect(kept.map((r) => ({ symbol: r.symbol, bucket: Number(r.bucket), price: String(Number(r.price)) }))).toEqual([
      { symbol: "ETH-PERP", bucket: T0, price: "3000" },
    ]);
    await candlesMigration.up(fresh.db);
    expect(await all("ETH-PERP")).toEqual([
      { time: T0, open: "3000", high: "3000", low: "3000", close: "3000", ticks: 1 },
    ]);
    expect((await fresh.db.introspection.getTables()).some((t) => t.name === "price_history")).toBe(false);
  });
});
