// Every alert accounted for (issue 25, decision 046), on both databases, through the real
// webhook, runner, simulator and notifier, against the MSW fake of a Discord-style webhook that
// counts deliveries: an alert refused at the webhook (403, a symbol its strategy may not trade),
// one too old to chase, one under the emergency stop, one whose symbol another strategy owns,
// one meeting a manual order resting on the symbol, one under the minimum size, and an order the
// exchange refuses are each delivered once, with the reason; a flip notifies the side it closed.
// A refusal is queued by the web process with the signal, in its transaction.
import { setupServer } from "msw/node";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { DEFAULT_EVENTS } from "#app/core/notifications/events.ts";
import { DISCORD_URL, createNotificationFakes } from "#tests/msw/notifications.ts";
import {
  type TestApp,
  createTestApp,
  deliveriesSettled,
  jobsIdle,
  registerVia,
  sendSignal,
  waitFor,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { notifyOnce } from "#worker/notifications/notifier.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

const SIGNING_SECRET = "whsec-alerts-0123456789abcdef";
const fakes = createNotificationFakes();
const server = setupServer(...fakes.handlers);

describe.each(testDialects())("every alert accounted for on %s", (dialect) => {
  let app: TestApp;
  let admin: string;
  let secret: string;
  let runner: Runner | null = null;
  let strategies: Record<"Mu" | "Nu", { id: string; secret: string }>;
  const db = () => app.database.db;
  let n = 0;

  const delivered = async () => {
    await deliveriesSettled(app);
    const kinds = new Map(
      (await db().selectFrom("notifications").select(["id", "kind"]).execute()).map((r) => [r.id, r.kind]),
    );
    return fakes.state.webhook.map((w) => ({
      kind: kinds.get(String(w.json.notificationId)) ?? "?",
      text: JSON.stringify(w.json),
    }));
  };
  /** An alert, then the worker and the notifier: what the fake channel received for it. */
  const alert = async (key: string, body: Record<string, unknown>, expectStatus = 200) => {
    n += 1;
    const response = await sendSignal(app, key, { id: `acc-${n}`, order_type: "market", ...body });
    expect(response.status, await response.clone().text()).toBe(expectStatus);
    const answer = (await response.json()) as { signalId: string };
    await waitFor(
      "signal final",
      async () => {
        const row = await db()
          .selectFrom("signals")
          .select("status")
          .where("id", "=", answer.signalId)
          .executeTakeFirst();
        return row && row.status !== "queued";
      },
      15_000,
      10,
    );
    await jobsIdle(app);
    await notifyOnce(db(), { appSecret: app.config.appSecret, workerId: "acc-w1" });
    return { signalId: answer.signalId, received: await delivered() };
  };

  beforeAll(async () => {
    server.listen({ onUnhandledRequest: "bypass" });
    app = await createTestApp(dialect, { APP_SECRET: process.env.APP_SECRET! }, { file: true });
    admin = (await registerVia(app, "acc_admin")).cookie;
    secret = await webhookSecret(app, admin);
    await new SimulatorAdapter(db()).ensureAccount();
    const make = async (name: string, allowedSymbols: string[]) => {
      const r = await app.fetch("/api/strategies", {
        method: "POST",
        cookie: admin,
        json: { name, allowedSymbols, amountType: "multiplier", amountValue: "1" },
      });
      expect(r.status).toBe(201);
      return (await r.json()) as { id: string; secret: string };
    };
    strategies = { Mu: await make("Mu", ["ETH-PERP"]), Nu: await make("Nu", ["ETH-PERP", "SOL-PERP"]) };
    expect(
      (
        await app.fetch("/api/notifications", {
          method: "POST",
          cookie: admin,
          json: {
            intent: "general",
            rateLimitPerMinute: 600,
            dailySummaryTime: "20:00",
            allowPrivateDestinations: true,
          },
        })
      ).status,
    ).toBe(200);
    // The channel keeps the default events: the alert kinds are among them.
    expect(DEFAULT_EVENTS).toEqual(
      expect.arrayContaining(["alert_failed", "alert_skipped", "order_failed", "position_closed"]),
    );
    expect(
      (
        await app.fetch("/api/notifications", {
          method: "POST",
          cookie: admin,
          json: {
            intent: "webhook",
            enabled: true,
            url: DISCORD_URL,
            signingSecret: SIGNING_SECRET,
            events: DEFAULT_EVENTS,
          },
        })
      ).status,
    ).toBe(200);
    runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "acc-w1", pollMs: 3 });
    // History is not news: the notifier starts from here.
    await notifyOnce(db(), { appSecret: app.config.appSecret, workerId: "acc-w1" });
  });
  afterAll(async () => {
    await runner?.stop();
    server.close();
    await app?.cleanup();
  });
  beforeEach(async () => {
    // What the previous test left (an emergency stop's off, ...) is told and settled first.
    await notifyOnce(db(), { appSecret: app.config.appSecret, workerId: "acc-w1" });
    await delivered();
    fakes.state.webhook.length = 0;
    await db().deleteFrom("notification_deliveries").execute();
    await db().deleteFrom("notifications").execute();
    await setPrice(db(), "ETH-PERP", "3000", "test");
    await setPrice(db(), "SOL-PERP", "100", "test");
    await setPrice(db(), "BTC-PERP", "100000", "test");
    await setPrice(db(), "XRP-PERP", "2", "test");
  });

  test("refused at the webhook (403): queued with the signal in its transaction, delivered once with the reason", async () => {
    n += 1;
    const response = await sendSignal(app, strategies.Mu.secret, {
      id: `acc-${n}`,
      action: "buy",
      symbol: "SOL-PERP",
      quantity: "1",
      order_type: "market",
    });
    expect(response.status).toBe(403);
    const { signalId } = (await response.json()) as { signalId: string };
    // Already there when the answer came, before any notifier pass.
    const queued = await db()
      .selectFrom("notifications")
      .selectAll()
      .where("dedupe_key", "=", `signal:${signalId}:alert_failed`)
      .execute();
    expect(queued.map((q) => q.title)).toEqual(["Alert refused: BUY 1 SOL-PERP"]);
    expect(queued[0]!.body).toBe("Alert BUY 1 SOL-PERP (strategy Mu) refused: SOL-PERP is not allowed for strategy Mu");
    await notifyOnce(db(), { appSecret: app.config.appSecret, workerId: "acc-w1" }); // the log line is not notified a second time
    const received = await delivered();
    expect(received.map((r) => r.kind)).toEqual(["alert_failed"]);
    expect(received[0]!.text).toContain("SOL-PERP is not allowed for strategy Mu");
  });

  test("skipped: too old to chase", async () => {
    const { received } = await alert(secret, {
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "0.01",
      timestamp: new Date(Date.now() - 90_000).toISOString(),
    });
    expect(received.map((r) => r.kind)).toEqual(["alert_skipped"]);
    expect(received[0]!.text).toMatch(/Alert skipped: BUY 0\.01 ETH-PERP.*s old \(limit 30 s\): entry not chased/);
  });

  test("skipped: the emergency stop is on", async () => {
    expect((await app.fetch("/api/emergency-stop", { method: "POST", cookie: admin, json: {} })).status).toBe(200);
    try {
      await notifyOnce(db(), { appSecret: app.config.appSecret, workerId: "acc-w1" });
      fakes.state.webhook.length = 0;
      await db().deleteFrom("notification_deliveries").execute();
      await db().deleteFrom("notifications").execute();
      const { received } = await alert(secret, { action: "buy", symbol: "ETH-PERP", quantity: "0.01" });
      expect(received.map((r) => r.kind)).toEqual(["alert_skipped"]);
      expect(received[0]!.text).toContain("Emergency stop is active");
    } finally {
      expect((await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin, json: {} })).status).toBe(
        200,
      );
    }
  });

  test("skipped: another strategy owns the symbol; a manual order resting on the symbol", async () => {
    const opened = await alert(strategies.Mu.secret, { action: "buy", symbol: "ETH-PERP", quantity: "0.01" });
    expect(opened.received.map((r) => r.kind)).toEqual([]); // a fill: "order filled" is off by default
    const conflict = await alert(strategies.Nu.secret, { action: "buy", symbol: "ETH-PERP", quantity: "0.01" });
    expect(conflict.received.map((r) => r.kind)).toEqual(["alert_skipped"]);
    expect(conflict.received[0]!.text).toContain("ETH-PERP has an open position of strategy Mu");

    // A manual limit order resting far below the price on SOL-PERP: Nu's alert there waits for nothing, it is skipped with the reason.
    fakes.state.webhook.length = 0;
    const placed = await app.fetch("/api/trades", {
      method: "POST",
      cookie: admin,
      json: { symbol: "SOL-PERP", side: "buy", orderType: "limit", price: "50", amountType: "quantity", quantity: "1" },
    });
    expect(placed.status).toBe(201);
    await waitFor(
      "resting",
      () =>
        db()
          .selectFrom("trades")
          .select("id")
          .where("symbol", "=", "SOL-PERP")
          .where("status", "=", "pending")
          .where("order_id", "is not", null)
          .executeTakeFirst(),
      15_000,
      10,
    );
    const resting = await alert(strategies.Nu.secret, { action: "buy", symbol: "SOL-PERP", quantity: "1" });
    expect(resting.received.map((r) => r.kind)).toEqual(["alert_skipped"]);
    expect(resting.received[0]!.text).toContain("SOL-PERP has an order in flight of another source");
  });

  test("failed: below the minimum size, and an order the exchange refuses", async () => {
    const tiny = await alert(secret, { action: "buy", symbol: "BTC-PERP", quantity: "0.00001" });
    expect(tiny.received.map((r) => r.kind)).toEqual(["alert_failed"]);
    expect(tiny.received[0]!.text).toContain("Alert failed: BUY 0.00001 BTC-PERP");
    fakes.state.webhook.length = 0;
    const huge = await alert(secret, { action: "buy", symbol: "BTC-PERP", quantity: "500" });
    expect(huge.received.map((r) => r.kind)).toEqual(["order_failed"]);
    expect(huge.received[0]!.text).toContain("Order failed: BUY 500 BTC-PERP");
  });

  test("a flip notifies the side it closed (with its P&L)", async () => {
    await alert(secret, { action: "buy", symbol: "XRP-PERP", quantity: "10" });
    const long = await db()
      .selectFrom("positions")
      .selectAll()
      .where("symbol", "=", "XRP-PERP")
      .where("status", "=", "open")
      .executeTakeFirstOrThrow();
    fakes.state.webhook.length = 0;
    const flip = await alert(secret, { action: "sell", symbol: "XRP-PERP", quantity: "30" });
    expect(flip.received.map((r) => r.kind)).toEqual(["position_closed"]);
    expect(flip.received[0]!.text).toContain("Position closed: LONG XRP-PERP");
    expect(
      (await db().selectFrom("positions").select("status").where("id", "=", long.id).executeTakeFirstOrThrow()).status,
    ).toBe("closed");
    expect(
      (
        await db()
          .selectFrom("positions")
          .select("side")
          .where("symbol", "=", "XRP-PERP")
          .where("status", "=", "open")
          .executeTakeFirstOrThrow()
      ).side,
    ).toBe("short");
  });
});
