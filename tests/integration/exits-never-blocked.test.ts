// Issue 22, "Exits are never blocked", on the simulator and both dialects:
// 1. the emergency stop lets an order that only reduces the open position through, reduce-only
//    (a TradingView exit alert, a target toward flat, a manual partial sell with and without
//    JavaScript), and blocks entries, adds and the new side of a flip (close only);
// 2. a target-position alert is met by the filled position: the strategy's resting limit order
//    is cancelled (booked, logged) before the target order is sized;
// 3. an alert built by the Alert template builder (`timenow`, no `timestamp`) keeps the
//    "entry too old" guard.
// The same on the fake Coinbase: exits-never-blocked-coinbase.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { DEFAULT_ALERT_OPTIONS, buildAlertMessage, substitutePlaceholders } from "#app/core/alerts/template.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import {
  alertSender,
  freshApp,
  jobsIdle,
  pendingTrades,
  registerVia,
  restingTrade,
  signalFinal,
  signedSizes,
  toastAfter,
  waitFor,
  walkTargetsToFlat,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

const DATA_PARAM = "_data=routes%2F_app%2B%2Fmanual-trading";
const BLOCKED = "Emergency stop is active: no new positions are opened until it is reset";

describe.each(testDialects())("exits are never blocked, simulator on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  let admin: string;
  let secret: string;
  let runner: Runner | null = null;
  const db = () => app.database.db;
  const sim = () => new SimulatorAdapter(db());

  beforeAll(async () => {
    admin = (await registerVia(app, "exits_admin")).cookie;
    secret = await webhookSecret(app, admin);
    await sim().ensureAccount();
    await setPrice(db(), "XRP-PERP", "2.2", "test");
    await setPrice(db(), "ETH-PERP", "3000", "test");
    await setPrice(db(), "SOL-PERP", "180", "test");
    runner = startRunner({ db: db(), exchange: sim(), workerId: "exits-w1", pollMs: 3 });
  });
  afterAll(async () => {
    await runner?.stop();
  });

  const alert = alertSender(app, () => secret, "exit");
  /** Signed size of a symbol on the simulator and in the app (long +). */
  const sizes = (symbol: string) => signedSizes(app, sim(), symbol);
  /** The symbol's latest trade once final (a manual order's form may answer before the worker has run it). */
  const lastTrade = async (symbol: string) => {
    const row = await waitFor("the last trade final", async () => {
      const last = await db()
        .selectFrom("trades")
        .selectAll()
        .where("symbol", "=", symbol)
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .executeTakeFirstOrThrow();
      return last.status === "pending" ? null : last;
    });
    return `${row.side} ${D(String(row.quantity)).toString()} ${row.status}${Number(row.reduce_only) ? " reduce-only" : ""}`;
  };
  const logged = async (text: string) =>
    (await db().selectFrom("activity_logs").select("message").where("message", "like", `%${text}%`).execute()).map(
      (r) => r.message,
    );
  /** An alert the worker executes. */
  const executes = async (body: Record<string, unknown>) =>
    expect((await alert(body)).signal).toMatchObject({ status: "executed" });
  /** An alert the emergency stop keeps from the exchange: stored skipped, no order. */
  const storedSkipped = async (body: Record<string, unknown>) =>
    expect((await alert(body)).answer).toMatchObject({
      status: "skipped",
      reason: "Emergency stop is active: signal stored, no order sent",
    });
  const stop = async () =>
    expect((await app.fetch("/api/emergency-stop", { method: "POST", cookie: admin })).status).toBe(200);
  const reset = async () =>
    expect((await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin })).status).toBe(200);
  const manual = (changes: Record<string, string>) => ({
    intent: "place-order",
    symbol: "XRP-PERP",
    orderType: "market",
    amountType: "quantity",
    price: "",
    leverage: "1",
    marginType: "cross",
    ...changes,
  });

  test("during the emergency stop exits go out reduce-only; entries, adds and the new side of a flip stay blocked", async () => {
    await executes({ action: "buy", symbol: "XRPUSDT.P", quantity: "100" });
    expect(await sizes("XRP-PERP")).toEqual({ exchange: "100", app: "100" });
    await stop();
    try {
      // An entry on a flat symbol and an add to the long: stored skipped, as before.
      for (const body of [
        { action: "buy", symbol: "SOLUSDT.P", quantity: "1" },
        { action: "buy", symbol: "XRPUSDT.P", quantity: "10" },
      ]) {
        await storedSkipped(body);
      }
      // An exit alert selling part of the long: executed, reduce-only, said so in the log.
      await executes({ action: "sell", symbol: "XRPUSDT.P", quantity: "40" });
      expect(await sizes("XRP-PERP")).toEqual({ exchange: "60", app: "60" });
      expect(await lastTrade("XRP-PERP")).toBe("sell 40 executed reduce-only");
      expect(await logged("Emergency stop is active: SELL 40 XRP-PERP sent reduce-only")).toEqual([
        "Emergency stop is active: SELL 40 XRP-PERP sent reduce-only: it only reduces the long 100 position",
      ]);

      // A manual partial sell without JavaScript (a plain form post): executed, reduce-only.
      const plain = await app.fetch("/manual-trading", {
        method: "POST",
        cookie: admin,
        form: manual({ side: "sell", quantity: "10" }),
      });
      const page = await toastAfter(app, plain, admin);
      expect(page).toMatch(/Order queued|Trade Executed/);
      expect(page).not.toContain("Trade Failed");
      expect(page).not.toContain(BLOCKED);
      expect(await lastTrade("XRP-PERP")).toBe("sell 10 executed reduce-only");
      expect(await sizes("XRP-PERP")).toEqual({ exchange: "50", app: "50" });
      // With JavaScript: the same.
      const js = await app.fetch(`/manual-trading?${DATA_PARAM}`, {
        method: "POST",
        cookie: admin,
        form: { ...manual({ side: "sell", quantity: "5" }), _js: "1" },
      });
      expect(js.status).toBe(200);
      expect(await js.json()).toMatchObject({ tradeId: expect.any(String) });
      expect(await lastTrade("XRP-PERP")).toBe("sell 5 executed reduce-only");
      expect(await sizes("XRP-PERP")).toEqual({ exchange: "45", app: "45" });
      // A manual add stays refused, with and without JavaScript, and through the API.
      const add = await app.fetch("/manual-trading", {
        method: "POST",
        cookie: admin,
        form: manual({ side: "buy", quantity: "5" }),
      });
      expect(await toastAfter(app, add, admin)).toContain(BLOCKED);
      const addJs = await app.fetch(`/manual-trading?${DATA_PARAM}`, {
        method: "POST",
        cookie: admin,
        form: { ...manual({ side: "buy", quantity: "5" }), _js: "1" },
      });
      expect(await addJs.json()).toMatchObject({ toast: { title: "Trade Failed", description: BLOCKED } });
      const api = await app.fetch("/api/trades", {
        method: "POST",
        cookie: admin,
        json: { symbol: "SOL-PERP", side: "sell", orderType: "market", amountType: "quantity", quantity: "1" },
      });
      expect(api.status).toBe(409);

      // A target toward flat on the same side: long 45 → long 20 is a reduce-only sell of 25.
      await executes({
        action: "sell",
        symbol: "XRPUSDT.P",
        quantity: "25",
        market_position: "long",
        market_position_size: "20",
      });
      expect(await sizes("XRP-PERP")).toEqual({ exchange: "20", app: "20" });
      expect(await lastTrade("XRP-PERP")).toBe("sell 25 executed reduce-only");
      // A plain flip (sell 50 against long 20) is close only: 20 sold reduce-only, no short opened.
      await executes({ action: "sell", symbol: "XRPUSDT.P", quantity: "50" });
      expect(await sizes("XRP-PERP")).toEqual({ exchange: "0", app: "0" });
      expect(await lastTrade("XRP-PERP")).toBe("sell 20 executed reduce-only");
      expect(await logged("cut to 20")).toEqual([
        "Emergency stop is active: SELL 50 XRP-PERP cut to 20 and sent reduce-only: it closes the long 20 position; no short position is opened until the stop is reset",
      ]);
      // Flat now: a sell is an entry again.
      expect((await alert({ action: "sell", symbol: "XRPUSDT.P", quantity: "5" })).answer).toMatchObject({
        status: "skipped",
      });
      const manualEntry = await app.fetch("/manual-trading", {
        method: "POST",
        cookie: admin,
        form: manual({ side: "sell", quantity: "5" }),
      });
      expect(await toastAfter(app, manualEntry, admin)).toContain(BLOCKED);
    } finally {
      await reset();
    }

    // A target flip during the stop is close only too: long 30 → "short 10" closes the long.
    await executes({ action: "buy", symbol: "XRPUSDT.P", quantity: "30" });
    await stop();
    try {
      await executes({
        action: "sell",
        symbol: "XRPUSDT.P",
        quantity: "1",
        market_position: "short",
        market_position_size: "10",
      });
      expect(await sizes("XRP-PERP")).toEqual({ exchange: "0", app: "0" });
      expect(await lastTrade("XRP-PERP")).toBe("sell 30 executed reduce-only");
      // A target that opens from flat stays blocked.
      await storedSkipped({
        action: "sell",
        symbol: "XRPUSDT.P",
        quantity: "1",
        market_position: "short",
        market_position_size: "10",
      });
    } finally {
      await reset();
    }
    await jobsIdle(app);
    expect(await sizes("XRP-PERP")).toEqual({ exchange: "0", app: "0" });
    expect(await sizes("SOL-PERP")).toEqual({ exchange: "0", app: "0" });
  });

  test("an exit alert queued when the stop is activated still goes out, reduce-only; an entry queued with it is skipped", async () => {
    await executes({ action: "buy", symbol: "XRPUSDT.P", quantity: "10" });
    await runner?.stop();
    runner = null;
    const exit = (await alert({ action: "sell", symbol: "XRPUSDT.P", quantity: "10" }, { wait: false })).answer;
    const entry = (await alert({ action: "buy", symbol: "SOLUSDT.P", quantity: "1" }, { wait: false })).answer;
    expect([exit.status, entry.status]).toEqual(["queued", "queued"]);
    await stop();
    try {
      runner = startRunner({ db: db(), exchange: sim(), workerId: "exits-w2", pollMs: 3 });
      await jobsIdle(app);
      const status = async (id: string) =>
        await db()
          .selectFrom("signals")
          .select(["status", "status_reason"])
          .where("id", "=", id)
          .executeTakeFirstOrThrow();
      expect(await status(exit.signalId)).toMatchObject({ status: "executed" });
      expect(await status(entry.signalId)).toMatchObject({
        status: "skipped",
        status_reason: "Emergency stop is active",
      });
      expect(await lastTrade("XRP-PERP")).toBe("sell 10 executed reduce-only");
      expect(await sizes("XRP-PERP")).toEqual({ exchange: "0", app: "0" });
      expect(await sizes("SOL-PERP")).toEqual({ exchange: "0", app: "0" });
    } finally {
      await reset();
    }
  });

  test("a target alert is met by the filled position: the strategy's resting limit buy is cancelled first", async () => {
    // A resting limit buy of 0.001 ETH (far below the price) of the default strategy.
    const { answer } = await alert(
      { action: "buy", symbol: "ETHUSDT.P", quantity: "0.001", order_type: "limit", price: "1000" },
      { wait: false },
    );
    const resting = await restingTrade(app, answer.signalId);
    const target = (id: string, side: "buy" | "sell", position: string, size: string) =>
      alert({
        alert_id: id,
        action: side,
        symbol: "ETHUSDT.P",
        quantity: "1",
        market_position: position,
        market_position_size: size,
      });

    expect((await target("rt1", "buy", "long", "2")).signal).toMatchObject({ status: "executed" });
    expect(await sizes("ETH-PERP")).toEqual({ exchange: "2", app: "2" });
    expect(
      (await db().selectFrom("trades").select("status").where("id", "=", resting.id).executeTakeFirstOrThrow()).status,
    ).toBe("cancelled");
    expect(await logged("Resting order cancelled before the target position is sized")).toEqual([
      "Resting order cancelled before the target position is sized: BUY 0.001 ETH-PERP @ 1000 (the target counts the filled position, not orders that may not fill)",
    ]);
    let step = 1;
    await walkTargetsToFlat(
      (side, position, size) => target(`rt${++step}`, side, position, size),
      () => sizes("ETH-PERP"),
    );

    // No resting order is left, in the app or on the simulator.
    expect(await pendingTrades(app, "ETH-PERP")).toEqual([]);
    expect(
      await db()
        .selectFrom("sim_orders")
        .select("id")
        .where("symbol", "=", "ETH-PERP")
        .where("status", "=", "open")
        .execute(),
    ).toEqual([]);
  });

  test("an alert from the template builder (timenow, no timestamp) five minutes old is not chased; a fresh one is", async () => {
    const message = buildAlertMessage(
      { ...DEFAULT_ALERT_OPTIONS, symbol: "SOL-PERP", sizing: "fixed", quantity: "1" },
      secret,
    );
    const fired = (msAgo: number) =>
      new Date(Math.floor((Date.now() - msAgo) / 1000) * 1000).toISOString().replace(".000", "");
    const send = async (msAgo: number, bar: string) => {
      const body = substitutePlaceholders(message, {
        "strategy.order.action": "buy",
        "strategy.order.id": "Long",
        time: bar,
        timenow: fired(msAgo),
      });
      const response = await app.fetch("/api/webhook/tradingview", {
        method: "POST",
        body,
        headers: { "Content-Type": "text/plain" },
      });
      const { signalId, status } = (await response.json()) as { signalId: string; status: string };
      expect(status).toBe("queued");
      return signalFinal(app, signalId);
    };
    const stale = await send(5 * 60_000, "2026-01-01T10:00:00Z");
    expect(stale.status).toBe("skipped");
    expect(stale.status_reason).toMatch(/^Signal is 30\d s old \(limit 30 s\): entry not chased$/);
    expect(await sizes("SOL-PERP")).toEqual({ exchange: "0", app: "0" });
    expect((await send(0, "2026-01-01T10:05:00Z")).status).toBe("executed");
    expect(await sizes("SOL-PERP")).toEqual({ exchange: "1", app: "1" });
  });
});
