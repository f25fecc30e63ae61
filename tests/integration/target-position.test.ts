// Target-position signals (issue 12), on both dialects: TradingView strategy alerts carrying
// {{strategy.market_position}} / {{strategy.market_position_size}} bring the position to that
// target. flat → long 2 → (the same alert again) → long 1 → (flat missed) → short 1 → flat:
// every step ends with the exchange's position equal to the alert's target.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { freshApp, registerVia, sendSignal, signedSizes, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

describe.each(testDialects())("target-position signals on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  let secret: string;
  let runner: Runner | null = null;
  const db = () => app.database.db;
  const sim = () => new SimulatorAdapter(db());

  beforeAll(async () => {
    const admin = (await registerVia(app, "target_admin")).cookie;
    secret = await webhookSecret(app, admin);
    await sim().ensureAccount();
    await setPrice(db(), "ETH-PERP", "3000", "test");
    runner = startRunner({ db: db(), exchange: sim(), workerId: "tp-w1", pollMs: 3 });
  });
  afterAll(async () => {
    await runner?.stop();
  });

  /** Sends one strategy alert and waits until its signal is final; answers the signal's status and reason. */
  const alert = async (id: string, action: "buy" | "sell", position: "long" | "short" | "flat", size: string) => {
    const response = await sendSignal(app, secret, {
      id,
      action,
      symbol: "ETHUSDT.P",
      quantity: "1",
      order_type: "market",
      market_position: position,
      market_position_size: size,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { signalId: string; status: string };
    if (body.status === "duplicate") return { status: "duplicate", reason: null };
    return waitFor(
      `signal ${id} final`,
      async () => {
        const row = await db()
          .selectFrom("signals")
          .select(["status", "status_reason"])
          .where("id", "=", body.signalId)
          .executeTakeFirst();
        return row && row.status !== "queued" ? { status: row.status, reason: row.status_reason } : null;
      },
      15_000,
      10,
    );
  };
  /** Signed size on the exchange and in the app (long +). */
  const sizes = () => signedSizes(app, sim(), "ETH-PERP");

  test("open, repeat, reduce, flip over a missed alert, close: the position always ends at the target", async () => {
    expect(await alert("t1", "buy", "long", "2")).toMatchObject({ status: "executed" });
    expect(await sizes()).toEqual({ exchange: "2", app: "2" });

    expect(await alert("t1", "buy", "long", "2")).toMatchObject({ status: "duplicate" }); // TradingView resent it
    expect(await alert("t1-again", "buy", "long", "2")).toMatchObject({
      status: "skipped",
      reason: "Position already at the target (long 2)",
    });
    expect(await sizes()).toEqual({ exchange: "2", app: "2" });

    expect(await alert("t2", "sell", "long", "1")).toMatchObject({ status: "executed" });
    expect(await sizes()).toEqual({ exchange: "1", app: "1" });

    // The "flat" alert never came; the next says short 1: one sell of 2 flips it.
    expect(await alert("t4", "sell", "short", "1")).toMatchObject({ status: "executed" });
    expect(await sizes()).toEqual({ exchange: "-1", app: "-1" });

    expect(await alert("t5", "buy", "flat", "0")).toMatchObject({ status: "executed" });
    expect(await sizes()).toEqual({ exchange: "0", app: "0" });

    const orders = await db()
      .selectFrom("trades")
      .select(["side", "quantity", "reduce_only"])
      .where("symbol", "=", "ETH-PERP")
      .orderBy("created_at")
      .execute();
    expect(
      orders.map((o) => `${o.side} ${D(String(o.quantity)).toString()}${Number(o.reduce_only) ? " reduce-only" : ""}`),
    ).toEqual(["buy 2", "sell 1 reduce-only", "sell 2", "buy 1 reduce-only"]);
  });
});
