// Issue 15: the rules act on the active exchange's own, fresh price of the traded product. On
// the fake Coinbase (live), on both dialects: a position opened through a webhook on
// BIP-20DEC30-CDE keeps its stop-loss through a price-source outage and through a crossing
// price from another source (the simulator's feed), shows "price stale", puts the health
// check in warning and logs it; a fresh Coinbase futures price crossing the stop closes it.
import { describe, expect, test } from "vitest";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { LIVE_PRICE_SOURCE } from "#app/core/price-source.ts";
import { checkExchange } from "#app/services/health.server.ts";
import { listPositionViews } from "#app/services/positions.server.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { sendSignalExecuted, waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";
import { createPriceGuard } from "#worker/monitor/price-guard.ts";
import { exchangeTicks, processPriceTicks } from "#worker/monitor/price-loop.ts";
import { createRulesMonitor } from "#worker/monitor/rules-monitor.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });

describe.each(testDialects())("Rules act on the live exchange's fresh prices only, %s", (dialect) => {
  const suite = liveCoinbaseSuite(dialect, key, "price");
  const { app, db } = suite;
  const closeJobs = async () =>
    (await db().selectFrom("jobs").select("id").where("task", "=", "close-position").execute()).length;

  test("an outage or a foreign price never triggers the stop-loss; a fresh futures price does", async () => {
    msw.reset();
    await sendSignalExecuted(app, suite.secret, {
      action: "buy",
      symbol: "BTC-PERP",
      quantity: "0.02",
      order_type: "market",
    });
    const position = await db()
      .selectFrom("positions")
      .selectAll()
      .where("status", "=", "open")
      .executeTakeFirstOrThrow();
    expect(position.stop_price).not.toBeNull();
    const belowStop = String(Math.floor(Number(position.stop_price) * 0.99));

    const monitor = createRulesMonitor(db(), { exchange: suite.exchange });
    const guard = createPriceGuard({ maxAgeMs: 15_000 });
    const live = { exchangeName: "coinbase", maxAgeMs: 15_000, guard };

    // A fresh Coinbase futures price above the stop: stored as coinbase-cde, nothing to do.
    const ticks = await exchangeTicks(db(), suite.exchange);
    expect(ticks.map((t) => t.symbol).sort()).toEqual(["BTC-PERP", "ETH-PERP", "SOL-PERP", "XRP-PERP"]);
    expect(ticks.every((t) => t.source === LIVE_PRICE_SOURCE)).toBe(true);
    await processPriceTicks(db(), ticks, monitor, live);
    expect(await closeJobs()).toBe(0);
    expect((await listPositionViews(db()))[0]).toMatchObject({
      symbol: "BTC-PERP",
      priceStale: null,
      priceSource: "Coinbase futures prices",
    });

    // The price source fails: no tick, no order; once older than the limit it is stale.
    msw.fake.fail({ path: "/best_bid_ask", status: 503, times: 50 });
    msw.fake.fail({ path: /^\/(market\/)?products\//, status: 503, times: 50 });
    const failed = await exchangeTicks(db(), suite.exchange);
    expect(failed).toEqual([]);
    const later = Date.now() + 20_000;
    await processPriceTicks(db(), failed, monitor, { ...live, now: later });
    expect(await closeJobs()).toBe(0);
    const warning = await db()
      .selectFrom("activity_logs")
      .select(["level", "message"])
      .where("message", "like", "Price for BTC-PERP is stale%")
      .executeTakeFirst();
    expect(warning?.level).toBe("warning");
    expect(warning?.message).toMatch(/s old \(limit 15 s\)/);
    const pushed = await db().selectFrom("events").select("data").where("type", "=", "system_status").execute();
    expect(pushed.some((e) => String(e.data).includes("price_stale"))).toBe(true);
    const health = await checkExchange({ db: db(), config: app.config }, later);
    expect(health.status).toBe("warning");
    expect(health.message).toMatch(/price stale for BTC-PERP/);

    // A crossing price from the simulator's feed (spot / random walk) is not the exchange's: ignored.
    await setPrice(db(), "BTC-PERP", belowStop, "random-walk");
    await processPriceTicks(db(), [{ symbol: "BTC-PERP", price: belowStop, source: "random-walk" }], monitor, live);
    expect(await closeJobs()).toBe(0);
    const view = (await listPositionViews(db()))[0]!;
    expect(view.priceStale).toMatch(
      /simulated prices \(random walk, offline simulator\), not Coinbase's futures market/,
    );

    // The source is back and Coinbase's own price crosses the stop: the close is requested.
    msw.fake.state.faults.length = 0;
    msw.fake.setPrice("BIP-20DEC30-CDE", belowStop);
    await processPriceTicks(db(), await exchangeTicks(db(), suite.exchange), monitor, live);
    expect(await closeJobs()).toBe(1);
    const fresh = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Price for BTC-PERP is fresh again%")
      .executeTakeFirst();
    expect(fresh).toBeTruthy();
    await waitFor(
      "closed on Coinbase",
      async () =>
        (await db().selectFrom("positions").select("status").where("id", "=", position.id).executeTakeFirst())
          ?.status === "closed",
    );
    expect(msw.fake.state.positions.size).toBe(0);
  });
});
