// Issue 22, "Exits are never blocked", live on the fake Coinbase (tests/msw/coinbase.ts) and both
// dialects; the simulator's run is exits-never-blocked.test.ts. During the emergency stop an exit
// alert, a manual partial sell (a plain form post) and a target flip reach Coinbase as closes
// (/orders/close_position, its reduce-only order) and the new side stays blocked; a target
// alert cancels the strategy's resting limit order on Coinbase and is met by the filled position.
// Every step ends with Coinbase's position equal to the app's.
import Big from "big.js";
import { describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import {
  alertSender,
  jobsIdle,
  pendingTrades,
  restingTrade,
  toastAfter,
  waitFor,
  walkTargetsToFlat,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });
const ETH = "ETP-20DEC30-CDE"; // ETH-PERP, 0.1 ETH a contract

describe.each(testDialects())("exits are never blocked on the fake Coinbase, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, `exits_${dialect}`);
  const { app, db } = live;

  const alert = alertSender(app, () => live.secret, `cb-exit-${dialect}`, { symbol: "ETH-PERP" });
  /** Signed ETH on Coinbase (contracts × 0.1) and in the app (long +). */
  const sizes = async () => {
    const held = msw.fake.state.positions.get(ETH);
    const mine = await db()
      .selectFrom("positions")
      .select(["side", "remaining_quantity"])
      .where("symbol", "=", "ETH-PERP")
      .where("status", "=", "open")
      .executeTakeFirst();
    return {
      exchange: held ? D(held.contracts.times("0.1").toString()).toString() : "0",
      app: mine
        ? (mine.side === "short"
            ? D(String(mine.remaining_quantity)).neg()
            : D(String(mine.remaining_quantity))
          ).toString()
        : "0",
    };
  };
  const closes = () =>
    msw.fake.requestsTo("/orders/close_position", "POST").map((r) => (r.body as { size: string }).size);
  const restingLimits = () =>
    msw.fake.state.orders.filter(
      (o) => o.product_id === ETH && o.status === "OPEN" && o.order_configuration.limit_limit_gtc,
    );
  const stop = async () =>
    expect((await app.fetch("/api/emergency-stop", { method: "POST", cookie: live.admin })).status).toBe(200);
  const reset = async () =>
    expect((await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: live.admin })).status).toBe(200);

  test("during the emergency stop an exit alert, a manual partial sell without JavaScript and a target flip close on Coinbase; entries stay blocked", async () => {
    msw.reset(); // the fake is shared by both dialects' runs
    expect((await alert({ action: "buy", quantity: "1" })).signal).toMatchObject({ status: "executed" });
    expect(await sizes()).toEqual({ exchange: "1", app: "1" });
    await stop();
    try {
      expect((await alert({ action: "buy", quantity: "0.5" })).answer).toMatchObject({
        status: "skipped",
        reason: "Emergency stop is active: signal stored, no order sent",
      });
      expect((await alert({ action: "sell", quantity: "0.3" })).signal).toMatchObject({ status: "executed" });
      expect(await sizes()).toEqual({ exchange: "0.7", app: "0.7" });
      expect(closes()).toEqual(["3"]);

      // Manual Trading's form without JavaScript: a partial sell of 0.2.
      const form = {
        intent: "place-order",
        symbol: "ETH-PERP",
        side: "sell",
        orderType: "market",
        amountType: "quantity",
        quantity: "0.2",
        price: "",
        leverage: "1",
        marginType: "cross",
      };
      const posted = await app.fetch("/manual-trading", { method: "POST", cookie: live.admin, form });
      expect(await toastAfter(app, posted, live.admin)).not.toContain("Trade Failed");
      await waitFor("the manual sell executed", async () =>
        db()
          .selectFrom("trades")
          .select("id")
          .where("source", "=", "manual")
          .where("status", "=", "executed")
          .where("reduce_only", "=", 1)
          .executeTakeFirst(),
      );
      expect(await sizes()).toEqual({ exchange: "0.5", app: "0.5" });
      // A manual buy (an add) stays refused.
      const add = await app.fetch("/manual-trading", {
        method: "POST",
        cookie: live.admin,
        form: { ...form, side: "buy" },
      });
      expect(await toastAfter(app, add, live.admin)).toContain(
        "Emergency stop is active: no new positions are opened until it is reset",
      );

      // Target short 1 from long 0.5: close only, the short is not opened.
      expect(
        (await alert({ action: "sell", quantity: "1", market_position: "short", market_position_size: "1" })).signal,
      ).toMatchObject({ status: "executed" });
      expect(await sizes()).toEqual({ exchange: "0", app: "0" });
      expect(closes()).toEqual(["3", "2", "5"]);
      expect(
        msw.fake.requestsTo("/orders", "POST").filter((r) => (r.body as { side?: string }).side === "SELL"),
      ).toEqual([]);
    } finally {
      await reset();
    }
    await jobsIdle(app);
  });

  test("a target alert cancels the strategy's resting limit on Coinbase and is met by the filled position", async () => {
    const { answer } = await alert(
      { action: "buy", quantity: "0.1", order_type: "limit", price: "1000" },
      { wait: false },
    );
    await waitFor("the limit resting on Coinbase", async () => restingLimits().length === 1);
    await restingTrade(app, answer.signalId); // booked so in the app
    expect(restingLimits()).toHaveLength(1);
    const target = (side: "buy" | "sell", position: string, size: string) =>
      alert({ action: side, quantity: "1", market_position: position, market_position_size: size });

    expect((await target("buy", "long", "2")).signal).toMatchObject({ status: "executed" });
    expect(restingLimits()).toEqual([]);
    expect(await sizes()).toEqual({ exchange: "2", app: "2" });
    await walkTargetsToFlat(target, sizes);
    await jobsIdle(app);
    expect(restingLimits()).toEqual([]);
    expect(await pendingTrades(app, "ETH-PERP")).toEqual([]);
    expect(new Big(msw.fake.state.positions.get(ETH)?.contracts ?? 0).toString()).toBe("0");
  });
});
