// Open orders, cancelling and "Flatten all" (issue 11) on both databases, with a real
// worker on the simulator: a resting limit order is listed, cancelled through the API and
// its hold released at once; Cancel all; flatten closes every position and cancels every
// order, works under the emergency stop, and verifies on the exchange that the account is
// flat; a viewer may do none of it.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { freshApp, openPositionOn, registeredAccounts, sendSignal, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { writeHeartbeat } from "#db/queries/worker-heartbeats.ts";
import { processPriceTicks } from "#worker/monitor/price-loop.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

describe.each(testDialects())("open orders and flatten on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, {
    admin: "flat_admin",
    trader: "flat_trader",
    viewer: ["flat_viewer", "viewer"],
  });
  let secret: string;
  let runner: Runner;
  const db = () => app.database.db;

  beforeAll(async () => {
    secret = await webhookSecret(app, cookies.admin);
    await new SimulatorAdapter(db()).ensureAccount();
    const manualOff = {
      applyTakeProfitToManual: false,
      applyStopLossToManual: false,
      applyBreakEvenToManual: false,
      applyTrailingStopToManual: false,
    };
    expect(
      (await app.fetch("/api/trading-config", { method: "POST", cookie: cookies.admin, json: manualOff })).status,
    ).toBe(200);
    runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "flat-w1", pollMs: 3 });
  });
  afterAll(async () => {
    await runner?.stop();
  });
  beforeEach(async () => {
    // Each test starts from a funded paper account with nothing resting.
    await db()
      .updateTable("sim_orders")
      .set({ status: "cancelled", hold_amount: "0" })
      .where("status", "=", "open")
      .execute();
    await db().updateTable("trades").set({ status: "cancelled" }).where("status", "=", "pending").execute();
    await db().updateTable("balances").set({ available: "10000", hold: "0" }).execute();
    await setPrice(db(), "ETH-PERP", "3000", "test");
    await setPrice(db(), "BTC-PERP", "100000", "test");
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: cookies.admin });
  });

  const hold = async () =>
    D((await db().selectFrom("balances").select("hold").where("currency", "=", "USDC").executeTakeFirstOrThrow()).hold);
  const placeLimit = async (price: string) => {
    const answer = await app.fetch("/api/trades", {
      method: "POST",
      cookie: cookies.trader,
      json: { symbol: "ETH-PERP", side: "buy", orderType: "limit", amountType: "quantity", quantity: "0.1", price },
    });
    expect(answer.status).toBe(201);
    const { trade } = (await answer.json()) as { trade: { id: string } };
    await waitFor(
      "order resting",
      async () =>
        (await db().selectFrom("trades").select("order_id").where("id", "=", trade.id).executeTakeFirst())?.order_id,
      15_000,
      10,
    );
    return trade.id;
  };
  /** A market buy of ETH-PERP sent as an alert (its id `<prefix>-<now>`), once the worker has opened it; answers the position's id. */
  const openEthLong = async (quantity: string, prefix: string) => {
    const sent = await sendSignal(app, secret, {
      action: "buy",
      symbol: "ETH-PERP",
      quantity,
      order_type: "market",
      id: `${prefix}-${Date.now()}`,
    });
    expect(sent.status).toBe(200);
    return (await openPositionOn(app, "ETH-PERP")).id;
  };
  const openOrders = async (cookie = cookies.trader) =>
    (await (await app.fetch("/api/orders", { cookie })).json()) as { id: string; status: string; price: string }[];

  test("a resting limit order is listed, cancelled through the API, and its hold released at once", async () => {
    const before = await hold();
    const id = await placeLimit("2500");
    expect((await hold()).gt(before)).toBe(true);
    expect((await openOrders(cookies.viewer)).map((o) => o.id)).toContain(id);

    expect((await app.fetch(`/api/trades/${id}/cancel`, { method: "POST", cookie: cookies.viewer })).status).toBe(403);
    const cancel = await app.fetch(`/api/trades/${id}/cancel`, { method: "POST", cookie: cookies.trader });
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toEqual({ success: true, status: "cancelled", done: true });
    expect((await hold()).toString()).toBe(before.toString());
    expect(await openOrders()).toEqual([]);
    const again = await app.fetch(`/api/trades/${id}/cancel`, { method: "POST", cookie: cookies.trader });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: "The order is already cancelled" });
    const log = await db()
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Order cancelled by flat_trader%")
      .execute();
    expect(log.length).toBe(1);
  });

  test("the open orders card is on Manual Trading and (while an order rests) the dashboard; its forms return there", async () => {
    expect(await (await app.fetch("/dashboard", { cookie: cookies.trader })).text()).not.toContain(
      'data-testid="open-orders"',
    );
    const id = await placeLimit("2450");
    for (const page of ["/manual-trading", "/dashboard", "/positions"]) {
      const html = await (await app.fetch(page, { cookie: cookies.trader })).text();
      expect(html, page).toContain(`data-testid="cancel-order-${id}"`);
    }
    const form = (back: string) =>
      app.fetch("/positions", { method: "POST", cookie: cookies.trader, form: { intent: "cancel-order", id, back } });
    const posted = await form("/manual-trading");
    expect(posted.status).toBe(302);
    expect(posted.headers.get("location")).toBe("/manual-trading");
    expect(await openOrders()).toEqual([]);
    // Another origin is never a destination: back to Positions.
    const evil = await app.fetch("/positions", {
      method: "POST",
      cookie: cookies.trader,
      form: { intent: "cancel-all", back: "https://evil.example/x" },
    });
    expect(evil.headers.get("location")).toBe("/positions");
  });

  test("Cancel all cancels every resting order", async () => {
    await placeLimit("2400");
    await placeLimit("2300");
    const answer = await app.fetch("/api/orders/cancel-all", { method: "POST", cookie: cookies.trader });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ success: true, cancelled: 2, done: true });
    expect(await openOrders()).toEqual([]);
    expect((await hold()).toString()).toBe("0");
  });

  test("Flatten all under the emergency stop: every position closed, every order cancelled, the exchange flat", async () => {
    for (const [symbol, action] of [
      ["ETH-PERP", "buy"],
      ["BTC-PERP", "sell"],
    ] as const) {
      expect(
        (
          await sendSignal(app, secret, {
            action,
            symbol,
            quantity: symbol === "BTC-PERP" ? "0.01" : "0.5",
            order_type: "market",
            id: `flat-${symbol}`,
          })
        ).status,
      ).toBe(200);
    }
    await waitFor(
      "two positions",
      async () => {
        const n = Number(
          (
            await db()
              .selectFrom("positions")
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .where("status", "=", "open")
              .executeTakeFirst()
          )?.n,
        );
        return n === 2;
      },
      15_000,
      10,
    );
    await placeLimit("2000");
    expect((await app.fetch("/api/emergency-stop", { method: "POST", cookie: cookies.viewer })).status).toBe(200);

    expect((await app.fetch("/api/positions/close-all", { method: "POST", cookie: cookies.viewer })).status).toBe(403);
    const answer = await app.fetch("/api/positions/close-all", { method: "POST", cookie: cookies.trader });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      success: true,
      closed: 2,
      cancelled: 1,
      flat: true,
      remaining: [],
      done: true,
    });
    const open = await db().selectFrom("positions").select("id").where("status", "=", "open").execute();
    expect(open).toEqual([]);
    const sim = await db().selectFrom("sim_positions").select(["symbol", "quantity"]).execute();
    for (const row of sim) expect(D(row.quantity).toString(), row.symbol).toBe("0");
    expect((await hold()).toString()).toBe("0");
    const line = await db()
      .selectFrom("activity_logs")
      .select(["level", "message"])
      .where("message", "like", "Flatten all by flat_trader%")
      .executeTakeFirstOrThrow();
    expect(line).toEqual({
      level: "success",
      message: "Flatten all by flat_trader: 2 positions closed, 1 order cancelled; the account is flat",
    });

    // Nothing left: flattening again says so.
    const twice = await app.fetch("/api/positions/close-all", { method: "POST", cookie: cookies.trader });
    expect(await twice.json()).toEqual({
      success: true,
      closed: 0,
      cancelled: 0,
      flat: true,
      remaining: [],
      done: true,
    });
  });

  test("a manual order says what happened: an overdraw is a 400 before queuing; a fill is 'Trade Executed', a resting limit says so", async () => {
    const jobsBefore = Number(
      (
        await db()
          .selectFrom("jobs")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirst()
      )?.n,
    );
    const form = (extra: Record<string, string>) => ({
      intent: "place-order",
      symbol: "ETH-PERP",
      side: "buy",
      orderType: "market",
      amountType: "quantity",
      quantity: "0.01",
      _js: "1",
      ...extra,
    });
    const overdraw = await app.fetch("/dashboard?_data=routes%2F_app%2B%2Fdashboard", {
      method: "POST",
      cookie: cookies.trader,
      form: form({ quantity: "100" }),
    });
    expect(overdraw.status).toBe(400);
    const refused = (await overdraw.json()) as { toast: { title: string; description: string } };
    expect(refused.toast.title).toBe("Trade Failed");
    expect(refused.toast.description).toMatch(
      /^Insufficient margin: order needs [\d,.]+ USDC, available [\d,.]+ USDC$/,
    );
    const api = await app.fetch("/api/trades", {
      method: "POST",
      cookie: cookies.trader,
      json: { symbol: "ETH-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "100" },
    });
    expect(api.status).toBe(400);
    expect(await api.json()).toMatchObject({ success: false, field: "quantity" });
    expect(
      Number(
        (
          await db()
            .selectFrom("jobs")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirst()
        )?.n,
      ),
    ).toBe(jobsBefore);

    // A worker is running (its heartbeat is fresh): the form waits for the outcome.
    await writeHeartbeat(db(), {
      workerId: "flat-w1",
      hostname: "test",
      pid: process.pid,
      startedAt: Date.now(),
      status: "running",
    });
    const filled = await app.fetch("/dashboard?_data=routes%2F_app%2B%2Fdashboard", {
      method: "POST",
      cookie: cookies.trader,
      form: form({}),
    });
    expect(await filled.json()).toMatchObject({
      toast: { title: "Trade Executed", description: "BUY order for ETH-PERP has been placed successfully" },
      tradeStatus: "executed",
    });
    const resting = await app.fetch("/dashboard?_data=routes%2F_app%2B%2Fdashboard", {
      method: "POST",
      cookie: cookies.trader,
      form: form({ orderType: "limit", price: "1500" }),
    });
    const answer = (await resting.json()) as {
      toast: { title: string; description: string };
      tradeId: string;
      tradeStatus: string;
    };
    expect(answer).toMatchObject({ toast: { title: "Limit order resting" }, tradeStatus: "pending" });
    expect(answer.toast.description).toBe(
      "BUY 0.01 ETH-PERP @ 1500 waits on the exchange: see Open orders on Positions",
    );

    // It fails late: the margin is gone when the price reaches it (as if other positions had
    // taken it and the order's hold with it). The reason goes out live.
    await db().updateTable("balances").set({ available: "0" }).where("currency", "=", "USDC").execute();
    await db().updateTable("sim_orders").set({ hold_amount: "0" }).where("status", "=", "open").execute();
    await setPrice(db(), "ETH-PERP", "1490", "test");
    await processPriceTicks(db(), [{ symbol: "ETH-PERP", price: "1490" }]);
    const trade = await db()
      .selectFrom("trades")
      .select(["status", "error_message"])
      .where("id", "=", answer.tradeId)
      .executeTakeFirstOrThrow();
    expect(trade.status).toBe("cancelled");
    expect(trade.error_message).toMatch(/^Insufficient margin: .* when the limit price was reached$/);
    const events = await db()
      .selectFrom("events")
      .select("data")
      .where("type", "=", "trade_update")
      .orderBy("id", "desc")
      .limit(5)
      .execute();
    const live = events
      .map((e) => JSON.parse(e.data) as { id: string; status: string; message?: string })
      .find((e) => e.id === answer.tradeId);
    expect(live).toMatchObject({ status: "cancelled", message: trade.error_message });
    await db().deleteFrom("worker_heartbeats").execute();
  });

  test("without JavaScript, Flatten all and Stop and flatten ask first: the unconfirmed post flattens and stops nothing, the page's Confirm (confirm=1) does (issue 23)", async () => {
    await openEthLong("0.2", "confirm-flat");
    const closeJobs = async () =>
      Number(
        (
          await db()
            .selectFrom("jobs")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("task", "=", "close-position")
            .executeTakeFirst()
        )?.n,
      );
    const stopActive = async () => {
      const health = (await (await app.fetch("/api/health", { cookie: cookies.trader })).json()) as {
        systemStatus: { component: string; status: string }[];
      };
      return health.systemStatus.find((c) => c.component === "system")?.status === "warning";
    };
    const jobsBefore = await closeJobs();
    // The confirmation is the page itself (server-rendered), posting the same intent again with confirm=1.
    const cases = [
      [
        "/positions",
        "flatten",
        "Flatten all? Every resting order is cancelled and every open position is closed at market.",
      ],
      [
        "/dashboard",
        "flatten",
        "Flatten all? Every resting order is cancelled and every open position is closed at market.",
      ],
      [
        "/dashboard",
        "emergency-stop-flatten",
        "Stop and flatten? The emergency stop turns on (no new positions until an admin resets it)",
      ],
      ["/?index", "emergency-stop-flatten", "Stop and flatten?"],
    ] as const;
    for (const [path, intent, question] of cases) {
      const first = await app.fetch(path, { method: "POST", cookie: cookies.trader, form: { intent } });
      expect(first.status, `${path} ${intent}`).toBe(200);
      const page = await first.text();
      expect(page).toContain(`data-testid="confirm-${intent}"`);
      expect(page).toContain(question);
      const form = page.slice(page.indexOf(`data-testid="confirm-${intent}"`));
      expect(form).toContain(`<form method="post" action="${path === "/positions" ? "/positions" : "/dashboard"}">`);
      expect(form).toContain(`name="intent" value="${intent}"`);
      expect(form).toContain('name="confirm" value="1"');
      // A forged post without confirm, even with JavaScript's marker, flattens nothing either.
      const forged = await app.fetch(
        `${path === "/positions" ? "/positions?_data=routes%2F_app%2B%2Fpositions" : "/dashboard?_data=routes%2F_app%2B%2Fdashboard"}`,
        { method: "POST", cookie: cookies.trader, form: { intent, _js: "1" } },
      );
      expect(await forged.json()).toMatchObject({ confirm: intent });
    }
    expect(await closeJobs()).toBe(jobsBefore);
    expect(await stopActive()).toBe(false);
    expect((await db().selectFrom("positions").select("id").where("status", "=", "open").execute()).length).toBe(1);
    // A viewer gets no confirmation: refused before anything.
    expect(
      (await app.fetch("/positions", { method: "POST", cookie: cookies.viewer, form: { intent: "flatten" } })).status,
    ).toBe(403);

    // Confirmed (the panel's button, no JavaScript): stopped and flat, back to the page with a toast.
    const confirmed = await app.fetch("/dashboard", {
      method: "POST",
      cookie: cookies.trader,
      form: { intent: "emergency-stop-flatten", confirm: "1" },
    });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")).toBe("/dashboard");
    expect(await stopActive()).toBe(true);
    expect(await db().selectFrom("positions").select("id").where("status", "=", "open").execute()).toEqual([]);
    const again = await app.fetch("/positions", {
      method: "POST",
      cookie: cookies.trader,
      form: { intent: "flatten", confirm: "1" },
    });
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toBe("/positions");
  });

  test("'Stop and flatten' from the dashboard: the stop is on, the account flat; a viewer may only stop", async () => {
    await openEthLong("0.2", "stop-flat");
    const post = (cookie: string, intent: string) =>
      app.fetch("/dashboard?_data=routes%2F_app%2B%2Fdashboard", {
        method: "POST",
        cookie,
        form: { intent, _js: "1", confirm: "1" },
      });
    expect((await post(cookies.viewer, "emergency-stop-flatten")).status).toBe(403);
    const answer = await post(cookies.trader, "emergency-stop-flatten");
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      toast: {
        title: "Account Flat",
        description:
          "Emergency stop active. 1 position closed, 0 orders cancelled; the exchange reports no open position",
      },
    });
    const health = (await (await app.fetch("/api/health", { cookie: cookies.trader })).json()) as {
      systemStatus: { component: string; status: string }[];
    };
    expect(health.systemStatus.find((c) => c.component === "system")?.status).toBe("warning");
    expect(await db().selectFrom("positions").select("id").where("status", "=", "open").execute()).toEqual([]);
  });

  test("a paper position never blocks enabling an exchange: it stays on the simulator and closes there; a position held on Coinbase blocks a switch, naming it", async () => {
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: cookies.admin });
    const { apiKey, apiSecret } = makeCdpKey("ec");
    const spareKey = { apiKey, apiSecret };
    // A disabled connection changes nothing: added freely.
    const added = await app.fetch("/api/exchanges", {
      method: "POST",
      cookie: cookies.admin,
      // A real-shaped key (saving checks the key's shape): sandbox, so it trades on paper anyway.
      json: { exchangeName: "COINBASE", accountName: "Spare", ...spareKey, sandbox: true, isEnabled: false },
    });
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as { id: string };
    await openEthLong("0.3", "switch");

    const paper = await db()
      .selectFrom("positions")
      .select(["id", "exchange"])
      .where("status", "=", "open")
      .executeTakeFirstOrThrow();
    expect(paper.exchange).toBe("simulator");

    // The paper position stays on the simulator: enabling an exchange goes through (no Flatten all).
    const enable = await app.fetch(`/api/exchanges/${id}`, {
      method: "PUT",
      cookie: cookies.admin,
      json: { isEnabled: true },
    });
    expect(enable.status).toBe(200);
    expect(
      (await db().selectFrom("exchanges").select("is_enabled").where("id", "=", id).executeTakeFirstOrThrow())
        .is_enabled,
    ).toBeTruthy();
    // ... and it is still closed where it is held.
    const close = await app.fetch("/api/positions/ETH-PERP/close", { method: "POST", cookie: cookies.trader });
    expect(close.status).toBe(200);
    await waitFor(
      "closed on the simulator",
      async () =>
        (await db().selectFrom("positions").select("status").where("id", "=", paper.id).executeTakeFirstOrThrow())
          .status === "closed",
      15_000,
      10,
    );
    const closing = await db()
      .selectFrom("trades")
      .select(["exchange", "status"])
      .where("position_id", "=", paper.id)
      .where("reduce_only", "=", 1 as never)
      .executeTakeFirstOrThrow();
    expect(closing).toEqual({ exchange: "simulator", status: "executed" });

    // A position held on Coinbase would be stranded by a change of the trading connection: refused, naming it.
    const held = await openEthLong("0.3", "switch-live");
    await db().updateTable("positions").set({ exchange: "coinbase" }).where("id", "=", held).execute();
    const disable = await app.fetch(`/api/exchanges/${id}`, {
      method: "PUT",
      cookie: cookies.admin,
      json: { isEnabled: false },
    });
    expect(disable.status).toBe(409);
    expect(((await disable.json()) as { error: string }).error).toBe(
      "Close the positions and cancel the orders held on Coinbase first (Flatten all): they stay on the exchange they were opened on. Open on Coinbase: ETH-PERP long 0.3",
    );
    const page = await app.fetch("/exchanges", {
      method: "POST",
      cookie: cookies.admin,
      form: { intent: "enabled", id, value: "false" },
    });
    expect(page.status).toBe(302);
    expect(
      (await db().selectFrom("exchanges").select("is_enabled").where("id", "=", id).executeTakeFirstOrThrow())
        .is_enabled,
    ).toBeTruthy();
    await db().updateTable("positions").set({ exchange: "simulator" }).where("id", "=", held).execute();
    // Flatten all waits up to 10 s for the worker; on a loaded machine the close may land just after: asked again until flat.
    const flatten = async () =>
      (await (await app.fetch("/api/positions/close-all", { method: "POST", cookie: cookies.trader })).json()) as {
        flat: boolean;
      };
    expect(
      await waitFor("flat", async () => ((await flatten()).flat ? { flat: true } : null), 40_000, 500),
    ).toMatchObject({ flat: true });
    expect((await app.fetch(`/api/exchanges/${id}`, { method: "DELETE", cookie: cookies.admin })).status).toBe(200);
  }, 90_000);
});
