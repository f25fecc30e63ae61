// Notifications (issue 13, decision 030), on both databases, against MSW fakes of the Telegram
// Bot API and a Discord-style webhook and a real local SMTP server: each event, produced by the
// real code paths (signals and fills, a stop-loss, a reconciliation drift, the emergency stop, a
// missed heartbeat, rejected webhooks, a dead worker, the daily summary), reaches each channel
// exactly once; a failing channel is retried and then delivered once; a flood becomes one
// digest; no secret is ever in a message, a log line or a delivery error; the Telegram commands
// answer only the owner's chat and /stop really stops; non-admins are refused.
import { createHmac } from "node:crypto";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { D, toFixed } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { NOTIFICATION_EVENTS } from "#app/core/notifications/events.ts";
import { plainText, telegramText } from "#app/core/notifications/format.ts";
import { getClosedTradesPnl, getNetPnlSince } from "#app/services/statistics.server.ts";
import { checkStrategyHeartbeats } from "#db/queries/heartbeats.ts";
import { NOTIFICATION_MAX_ATTEMPTS, enqueueNotification, pruneNotifications } from "#db/queries/notifications.ts";
import { getEmergencyStop } from "#db/queries/trading-state.ts";
import { writeHeartbeat } from "#db/queries/worker-heartbeats.ts";
import { DISCORD_URL, TELEGRAM_ROOT, createNotificationFakes, startSmtpSink } from "#tests/msw/notifications.ts";
import {
  type TestApp,
  createTestApp,
  deliveriesSettled,
  expectFormRefused,
  latestAudit,
  notificationRunner,
  openPositionOn,
  rowInStatus,
  registerVia,
  sendSignal,
  sendSignalExecuted,
  waitFor,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { reconcileOnce } from "#worker/monitor/reconcile.ts";
import { createRulesMonitor } from "#worker/monitor/rules-monitor.ts";
import { notifyOnce } from "#worker/notifications/notifier.ts";
import { pollTelegramOnce } from "#worker/notifications/telegram-commands.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

const BOT_TOKEN = "7012345678:AAH-fake_bot_token_0123456789abcdefXYZ";
const OWNER_CHAT = 424242;
const STRANGER_CHAT = 999001;
const SIGNING_SECRET = "whsec-signing-secret-0123456789";
const SMTP_USER = "alerts";
const SMTP_PASSWORD = "smtp-password-0123456789-secret";
const SECRETS = [BOT_TOKEN, SIGNING_SECRET, SMTP_PASSWORD, DISCORD_URL, "fake-webhook-token-abcdefghijklmnop"];

const money = (value: string) => {
  const fixed = toFixed(value, 2);
  return fixed.startsWith("-") ? `-$${fixed.slice(1)}` : `+$${fixed}`;
};

const fakes = createNotificationFakes();
const server = setupServer(...fakes.handlers);
process.env.TELEGRAM_API_ROOT = TELEGRAM_ROOT;

describe.each(testDialects())("notifications on %s", (dialect) => {
  let app: TestApp;
  let admin: string;
  let trader: string;
  let secret: string;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  const db = () => app.database.db;
  const appSecret = () => app.config.appSecret;
  const printed: string[] = [];
  const spies: ReturnType<typeof vi.spyOn>[] = [];

  const api = (json: Record<string, unknown>, cookie = admin) =>
    app.fetch("/api/notifications", { method: "POST", cookie, json });
  const allEvents = [...NOTIFICATION_EVENTS];
  const setUpChannels = async (events: string[] = allEvents) => {
    expect(
      (await api({ intent: "telegram", enabled: true, botToken: BOT_TOKEN, chatId: String(OWNER_CHAT), events }))
        .status,
    ).toBe(200);
    expect(
      (await api({ intent: "webhook", enabled: true, url: DISCORD_URL, signingSecret: SIGNING_SECRET, events })).status,
    ).toBe(200);
    expect(
      (
        await api({
          intent: "email",
          enabled: true,
          host: "127.0.0.1",
          port: smtp.port,
          secure: false,
          user: SMTP_USER,
          password: SMTP_PASSWORD,
          from: "perpdesk@example.com",
          to: "owner@example.com",
          events,
        })
      ).status,
    ).toBe(200);
  };
  // Only the webhook channel stays on: Telegram and email are saved disabled, with no events.
  const webhookOnly = async () => {
    await setUpChannels(["emergency_stop"]);
    await api({ intent: "telegram", enabled: false, chatId: String(OWNER_CHAT), events: [] });
    await api({
      intent: "email",
      enabled: false,
      host: "127.0.0.1",
      port: smtp.port,
      user: SMTP_USER,
      from: "perpdesk@example.com",
      to: "owner@example.com",
      events: [],
    });
  };
  const general = (rateLimitPerMinute: number) =>
    api({ intent: "general", rateLimitPerMinute, dailySummaryTime: "20:00" });
  let runner: Runner | null = null;
  const startNotificationRunner = () => {
    runner = notificationRunner(app, "notify-w1");
  };
  const settled = () => deliveriesSettled(app);
  const resetAll = async () => {
    for (const table of [
      "notification_deliveries",
      "notifications",
      "notification_channels",
      "jobs",
      "trades",
      "positions",
      "sim_orders",
      "signals",
      "sim_positions",
      "drifts",
    ] as const)
      await db().deleteFrom(table).execute();
    await db()
      .deleteFrom("settings")
      .where("key", "in", ["notifier_state", "telegram_update_offset", "notifications_config", "emergency_stop"])
      .execute();
    fakes.state.telegram.length = 0;
    fakes.state.webhook.length = 0;
    fakes.state.webhookCalls = 0;
    fakes.state.webhookDelayMs = 0;
    fakes.state.webhookFailures = 0;
    fakes.state.telegramFailures = 0;
    fakes.state.updates.length = 0;
    smtp.messages.length = 0;
  };

  beforeAll(async () => {
    server.listen({ onUnhandledRequest: "error" });
    smtp = await startSmtpSink(SMTP_USER, SMTP_PASSWORD);
    app = await createTestApp(dialect, { APP_SECRET: process.env.APP_SECRET! }, { file: true });
    admin = (await registerVia(app, "nt_admin")).cookie;
    trader = (await registerVia(app, "nt_trader", "secret123", "trader")).cookie;
    secret = await webhookSecret(app, admin);
    await new SimulatorAdapter(db()).ensureAccount();
  });
  afterAll(async () => {
    server.close();
    await smtp?.close();
    await app?.cleanup();
  });
  beforeEach(async () => {
    await resetAll();
    // The fakes live on this machine (MSW's made-up hosts, the SMTP sink on 127.0.0.1): the
    // admin setting for private destinations lets them through (docs/security.md).
    expect(
      (
        await api({
          intent: "general",
          rateLimitPerMinute: 20,
          dailySummaryTime: "20:00",
          allowPrivateDestinations: true,
        })
      ).status,
    ).toBe(200);
    await setPrice(db(), "ETH-PERP", "3000");
    await setPrice(db(), "BTC-PERP", "100000");
    printed.length = 0;
    for (const method of ["log", "warn", "info", "error"] as const) {
      const original = console[method];
      spies.push(
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
          printed.push(args.map(String).join(" "));
          if (method === "error") original(...args);
        }),
      );
    }
  });
  afterEach(async () => {
    await (runner as Runner | null)?.stop();
    runner = null;
    for (const spy of spies.splice(0)) spy.mockRestore();
  });

  /** No secret in anything that left the app or was stored or printed. */
  const expectNoSecret = async () => {
    const delivered = [
      ...fakes.state.telegram.map((m) => m.raw),
      ...fakes.state.webhook.map((w) => w.body),
      ...smtp.messages.map((m) => m.raw),
      JSON.stringify(await db().selectFrom("notification_deliveries").selectAll().execute()),
      JSON.stringify(await db().selectFrom("notifications").selectAll().execute()),
      JSON.stringify(await db().selectFrom("notification_channels").selectAll().execute()),
      JSON.stringify(await db().selectFrom("activity_logs").selectAll().execute()),
      JSON.stringify(await db().selectFrom("audit_entries").selectAll().execute()),
      JSON.stringify(await db().selectFrom("jobs").selectAll().execute()),
      await (await app.fetch("/api/notifications", { cookie: admin })).text(),
      await (await app.fetch("/notifications", { cookie: admin })).text(),
      ...printed,
    ].join("\n");
    for (const value of SECRETS)
      expect(delivered.includes(value), `a secret (${value.slice(0, 6)}…) leaked`).toBe(false);
  };

  test("each event reaches each channel exactly once, with the ledger's P&L and no secret anywhere", async () => {
    await setUpChannels();
    expect((await general(600)).status).toBe(200);
    // The notifier starts from here: what happened before is not news.
    expect(await notifyOnce(db(), { appSecret: appSecret(), workerId: "notify-w1" })).toBe(0);

    const trading = startRunner({
      db: db(),
      exchange: new SimulatorAdapter(db()),
      workerId: "trade-w1",
      pollMs: 5,
      excludeTasks: ["send-notification"],
    });
    try {
      // Order filled: a long ETH position.
      await sendSignal(app, secret, { action: "buy", symbol: "ETH-PERP", quantity: "0.5", order_type: "market" });
      const position = await openPositionOn(app, "ETH-PERP");
      // Stop-loss hit (0.5% below the entry): the rule's close fills and closes the position.
      await setPrice(db(), "ETH-PERP", "2900");
      await createRulesMonitor(db()).tick({ "ETH-PERP": "2900" });
      await rowInStatus(app, "positions", position.id, "closed");
      // Order failed: far more than the paper margin.
      await sendSignal(app, secret, { action: "buy", symbol: "BTC-PERP", quantity: "500", order_type: "market" });
      await waitFor("order failed", () =>
        db().selectFrom("activity_logs").select("id").where("message", "like", "Order failed%").executeTakeFirst(),
      );
      // Alert failed (issue 25): under the smallest order, refused with the reason before any order.
      await sendSignal(app, secret, { action: "buy", symbol: "BTC-PERP", quantity: "0.00001", order_type: "market" });
      await waitFor("alert failed", () =>
        db()
          .selectFrom("activity_logs")
          .select("id")
          .where("message", "like", "Signal BUY 0.00001 BTC-PERP not executed%")
          .executeTakeFirst(),
      );
      // Reconciliation drift: the exchange no longer holds a position the app holds.
      await sendSignal(app, secret, { action: "buy", symbol: "BTC-PERP", quantity: "0.001", order_type: "market" });
      await openPositionOn(app, "BTC-PERP");
    } finally {
      await trading.stop();
    }
    await db().deleteFrom("sim_positions").execute();
    expect((await reconcileOnce(db(), new SimulatorAdapter(db()), { confirmations: 1 })).opened).toBe(1);
    // Emergency stop on and off (the header's API).
    expect((await app.fetch("/api/emergency-stop", { method: "POST", cookie: admin, json: {} })).status).toBe(200);
    // Alert skipped (issue 25): an entry under the emergency stop is stored without an order.
    expect(
      (await sendSignal(app, secret, { action: "buy", symbol: "ETH-PERP", quantity: "0.1", order_type: "market" }))
        .status,
    ).toBe(200);
    expect((await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin, json: {} })).status).toBe(
      200,
    );
    // Missed alert: the default strategy's heartbeat is overdue.
    expect(
      (await app.fetch("/api/heartbeats/default", { method: "PUT", cookie: admin, json: { intervalSeconds: 60 } }))
        .status,
    ).toBe(200);
    expect(await checkStrategyHeartbeats(db(), Date.now() + 600_000)).toEqual(["default"]);
    // Rejected webhooks (a wrong secret three times, a body that is not an alert): one aggregated
    // notification. (Repeats of one reason within a minute are one log line until the minute's summary.)
    for (let i = 0; i < 3; i++)
      expect((await sendSignal(app, "wrong-secret", { action: "buy", symbol: "BTC-PERP" })).status).toBe(401);
    expect(
      (
        await app.fetch("/api/webhook/tradingview", {
          method: "POST",
          body: "not json at all",
          headers: { "Content-Type": "text/plain" },
        })
      ).status,
    ).toBeGreaterThanOrEqual(400);
    const rejectedLines = (
      await db().selectFrom("activity_logs").select("message").where("message", "like", "Webhook rejected%").execute()
    ).length;
    expect(rejectedLines).toBeGreaterThanOrEqual(2);
    // A worker that died without stopping.
    await writeHeartbeat(db(), {
      workerId: "dead-worker",
      hostname: "box",
      pid: 4242,
      startedAt: Date.now() - 600_000,
      status: "running",
    });
    await db()
      .updateTable("worker_heartbeats")
      .set({ last_beat_at: Date.now() - 120_000 })
      .where("worker_id", "=", "dead-worker")
      .execute();

    // The notifier: now, then again at the next summary time (the rejection window is over too).
    await notifyOnce(db(), { appSecret: appSecret(), workerId: "notify-w1" });
    const tomorrow = new Date(Date.now() + 86_400_000);
    const summaryAt = Date.UTC(tomorrow.getUTCFullYear(), tomorrow.getUTCMonth(), tomorrow.getUTCDate(), 20, 0, 30);
    await notifyOnce(db(), { appSecret: appSecret(), workerId: "notify-w1", now: summaryAt });
    // Running it again finds nothing new: nothing is queued twice.
    const before = await db().selectFrom("notifications").select("id").execute();
    await notifyOnce(db(), { appSecret: appSecret(), workerId: "notify-w1", now: summaryAt + 1000 });
    expect(await db().selectFrom("notifications").select("id").execute()).toHaveLength(before.length);

    const notifications = await db().selectFrom("notifications").selectAll().orderBy("created_at").execute();
    const kinds = new Set(notifications.map((n) => n.kind));
    for (const event of NOTIFICATION_EVENTS)
      expect(kinds, `no ${event} notification: ${[...kinds].join(", ")}`).toContain(event);
    expect(notifications.filter((n) => n.kind === "webhook_rejected")).toHaveLength(1);
    expect(notifications.find((n) => n.kind === "webhook_rejected")!.title).toBe(
      `Webhook rejected ${rejectedLines} requests`,
    );
    expect(notifications.filter((n) => n.kind === "position_closed")).toHaveLength(1);
    expect(
      notifications
        .filter((n) => n.kind === "emergency_stop")
        .map((n) => n.title)
        .sort(),
    ).toEqual(["Emergency stop OFF", "Emergency stop ON"]);

    // The P&L in the message is the ledger's (the figure the screens show).
    const closedPnl = (await getClosedTradesPnl(db())).totalPnL;
    const pnl = toFixed(closedPnl, 2);
    expect(D(closedPnl).lt(0)).toBe(true);
    expect(notifications.find((n) => n.kind === "position_closed")!.title).toContain(`P&L -$${pnl.slice(1)}`);

    startNotificationRunner();
    await settled();
    const deliveries = await db().selectFrom("notification_deliveries").selectAll().execute();
    expect(deliveries).toHaveLength(notifications.length * 3);
    expect(deliveries.every((d) => d.status === "sent" && Number(d.attempts) === 1)).toBe(true);

    // Webhook: each notification once, Discord's `content` and Slack's `text`, a valid signature.
    expect(fakes.state.webhook.map((w) => w.json.notificationId).sort()).toEqual(notifications.map((n) => n.id).sort());
    for (const hook of fakes.state.webhook) {
      expect(hook.signature).toBe(`sha256=${createHmac("sha256", SIGNING_SECRET).update(hook.body).digest("hex")}`);
      expect(hook.json.content).toBe(hook.json.text);
    }
    // Telegram: each once, to the owner's chat.
    expect(fakes.state.telegram.every((m) => m.chatId === String(OWNER_CHAT))).toBe(true);
    expect(fakes.state.telegram.map((m) => m.text).sort()).toEqual(notifications.map((n) => telegramText(n)).sort());
    // E-mail: each once, signed in as the configured user.
    const subjects = smtp.messages.map((m) =>
      (m.raw.replace(/\r\n[ \t]+/g, " ").match(/^Subject: (.*)$/m)?.[1] ?? "").replace(/\s+/g, " "),
    );
    expect(subjects.sort()).toEqual(notifications.map((n) => `[PerpDesk] ${n.title}`.replace(/\s+/g, " ")).sort());
    expect(smtp.messages.every((m) => m.user === SMTP_USER && m.to[0] === "owner@example.com")).toBe(true);
    expect(plainText(notifications[0]!)).toContain(notifications[0]!.title);

    // The daily summary's and /pnl's figures are the statistics service's (the screens').
    const summary = notifications.find((n) => n.kind === "daily_summary")!;
    expect(summary.title).toContain(`${money(await getNetPnlSince(db(), summaryAt - 86_400_000))} in the last 24 h`);
    fakes.queueMessage(OWNER_CHAT, "/pnl");
    expect(await pollTelegramOnce(db(), { appSecret: appSecret(), timeoutSeconds: 0 })).toBe(1);
    const pnlReply = fakes.state.telegram.at(-1)!.text;
    expect(pnlReply).toContain(`Last 24 h: ${money(await getNetPnlSince(db(), Date.now() - 86_400_000))}`);
    expect(pnlReply).toContain(`All time: ${money(closedPnl)}`);

    await expectNoSecret();
  }, 90_000);

  test("a failing channel is retried with back-off, then delivered exactly once; a retried job sends nothing again", async () => {
    await setUpChannels(["emergency_stop"]);
    await notifyOnce(db(), { appSecret: appSecret() });
    expect((await app.fetch("/api/emergency-stop", { method: "POST", cookie: admin, json: {} })).status).toBe(200);
    expect(await notifyOnce(db(), { appSecret: appSecret() })).toBe(1);
    fakes.state.webhookFailures = 2;
    fakes.state.telegramFailures = 1;
    startNotificationRunner();
    // The first failures: retrying, with the error kept: the status only, never the remote body (which quotes the URL).
    const retrying = await waitFor("webhook retrying", () =>
      db()
        .selectFrom("notification_deliveries")
        .selectAll()
        .where("channel", "=", "webhook")
        .where("status", "=", "retrying")
        .executeTakeFirst(),
    );
    expect(retrying.last_error).toBe("Webhook answered HTTP 500");
    await settled();
    const rows = await db().selectFrom("notification_deliveries").selectAll().orderBy("channel").execute();
    expect(rows.map((r) => [r.channel, r.status, Number(r.attempts), r.last_error])).toEqual([
      ["email", "sent", 1, null],
      ["telegram", "sent", 2, null],
      ["webhook", "sent", 3, null],
    ]);
    expect(fakes.state.webhookCalls).toBe(3);
    expect(fakes.state.webhook).toHaveLength(1);
    expect(fakes.state.telegram).toHaveLength(1);
    expect(smtp.messages).toHaveLength(1);

    // The job runs once more (as if its worker died after the send): nothing is sent again.
    await runner!.stop();
    runner = null;
    await db()
      .updateTable("jobs")
      .set({ status: "retry", run_at: Date.now(), finished_at: null })
      .where("task", "=", "send-notification")
      .execute();
    startNotificationRunner();
    await waitFor(
      "jobs done again",
      async () =>
        (
          await db()
            .selectFrom("jobs")
            .select("status")
            .where("task", "=", "send-notification")
            .where("status", "!=", "completed")
            .execute()
        ).length === 0,
    );
    expect(fakes.state.webhook).toHaveLength(1);
    expect(fakes.state.telegram).toHaveLength(1);
    expect(smtp.messages).toHaveLength(1);
    await expectNoSecret();
  }, 60_000);

  test("a channel down for good: the delivery ends failed after its last attempt, logged as a warning (no System Alert error)", async () => {
    await webhookOnly();
    fakes.state.webhookFailures = 1_000;
    await enqueueNotification(db(), {
      kind: "emergency_stop",
      title: "Down for good",
      body: "",
      channels: ["webhook"],
    });
    startNotificationRunner();
    // Each retry waits its back-off (1 s, 2 s, 4 s ...): bring the next one forward until the last.
    const job = await waitFor(
      "the job's last attempt",
      async () => {
        await db()
          .updateTable("jobs")
          .set({ run_at: Date.now() })
          .where("task", "=", "send-notification")
          .where("status", "=", "retry")
          .execute();
        return db()
          .selectFrom("jobs")
          .select(["id", "attempts"])
          .where("task", "=", "send-notification")
          .where("status", "=", "failed")
          .executeTakeFirst();
      },
      30_000,
    );
    expect(Number(job.attempts)).toBe(NOTIFICATION_MAX_ATTEMPTS);
    const delivery = await db()
      .selectFrom("notification_deliveries")
      .selectAll()
      .where("channel", "=", "webhook")
      .executeTakeFirstOrThrow();
    expect([delivery.status, Number(delivery.attempts)]).toEqual(["failed", NOTIFICATION_MAX_ATTEMPTS]);
    expect(delivery.last_error).toContain("HTTP 500");
    const logged = await waitFor("the final failure's activity", () =>
      db()
        .selectFrom("activity_logs")
        .select(["level", "message"])
        .where("message", "like", `Job send-notification #${job.id} failed%`)
        .executeTakeFirst(),
    );
    expect(logged.level).toBe("warning");
    expect(fakes.state.webhook).toHaveLength(0);
  }, 45_000);

  test("a hanging channel never delays an order: notifications run on their own runner", async () => {
    await webhookOnly();
    fakes.state.webhookDelayMs = 4_000;
    // Three notifications whose sends hang, run as the worker runs them (worker/index.ts): their
    // own runner, 2 at a time; the third waits in the queue, older than the order's job, and
    // the order runner (1 slot here) must not take it.
    for (let i = 0; i < 3; i++)
      await enqueueNotification(db(), { kind: "order_filled", title: `Slow ${i}`, body: "", channels: ["webhook"] });
    startNotificationRunner();
    await waitFor("both sends started", async () => fakes.state.webhookCalls === 2);
    const trading = startRunner({
      db: db(),
      exchange: new SimulatorAdapter(db()),
      workerId: "trade-w1",
      pollMs: 5,
      concurrency: 1,
      excludeTasks: ["send-notification"],
    });
    try {
      const started = Date.now();
      await sendSignalExecuted(app, secret, {
        action: "buy",
        symbol: "ETH-PERP",
        quantity: "0.1",
        order_type: "market",
      });
      expect(Date.now() - started).toBeLessThan(2_000); // the channel still hangs meanwhile
      expect(fakes.state.webhook).toHaveLength(0);
    } finally {
      await trading.stop();
    }
    await settled();
    expect(fakes.state.webhook).toHaveLength(3);
  }, 30_000);

  test("a flood beyond the rate limit becomes one digest when the window reopens", async () => {
    await webhookOnly();
    expect((await general(3)).status).toBe(200);
    const ids: string[] = [];
    for (let i = 1; i <= 10; i++)
      ids.push(
        (await enqueueNotification(db(), {
          kind: "order_filled",
          title: `Flood message ${i}`,
          body: `number ${i}`,
          channels: ["webhook"],
          createdAt: Date.now() + i,
        }))!,
      );
    startNotificationRunner();
    await waitFor("3 sent, 7 folded", async () => {
      const rows = await db()
        .selectFrom("notification_deliveries")
        .select("status")
        .where("notification_id", "in", ids)
        .execute();
      return (
        rows.filter((r) => r.status === "sent").length === 3 && rows.filter((r) => r.status === "digested").length === 7
      );
    });
    expect(fakes.state.webhook).toHaveLength(3);
    const digest = await db().selectFrom("notifications").selectAll().where("kind", "=", "digest").execute();
    expect(digest).toHaveLength(1);
    const folded = await db()
      .selectFrom("notification_deliveries")
      .select("digest_id")
      .where("status", "=", "digested")
      .execute();
    expect(new Set(folded.map((f) => f.digest_id))).toEqual(new Set([digest[0]!.id]));
    const job = await db()
      .selectFrom("jobs")
      .selectAll()
      .where("job_key", "=", `notify:${digest[0]!.id}:webhook`)
      .executeTakeFirstOrThrow();
    const sent = await db()
      .selectFrom("notification_deliveries")
      .select("sent_at")
      .where("status", "=", "sent")
      .orderBy("sent_at")
      .execute();
    // Due when the first of the 3 leaves the window (its place was taken just before it was sent).
    expect(Number(job.run_at)).toBeLessThanOrEqual(Number(sent[0]!.sent_at) + 60_000);
    expect(Number(job.run_at)).toBeGreaterThan(Number(sent[0]!.sent_at) + 55_000);
    await Bun.sleep(200);
    expect(fakes.state.webhook).toHaveLength(3); // nothing more within the minute

    // The window reopens (the clock moved on by a minute): the digest goes out, once, with all 7.
    await db()
      .updateTable("notification_deliveries")
      .set({ sent_at: Date.now() - 61_000 })
      .where("status", "=", "sent")
      .execute();
    await db().updateTable("jobs").set({ run_at: Date.now() }).where("id", "=", job.id).execute();
    await settled();
    expect(fakes.state.webhook).toHaveLength(4);
    const message = fakes.state.webhook[3]!.json;
    expect(message.event).toBe("digest");
    expect(String(message.title)).toBe("Digest: 7 notifications held back by the rate limit");
    for (let i = 4; i <= 10; i++) expect(String(message.text)).toContain(`Flood message ${i}`);
    for (let i = 1; i <= 3; i++) expect(String(message.text)).not.toContain(`Flood message ${i}\n`);

    // The delivery log, paged by id: every delivery exactly once, newest first.
    const seen: number[] = [];
    let before: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const response = await app.fetch(`/api/notifications?limit=4${before ? `&before=${before}` : ""}`, {
        cookie: admin,
      });
      const page = (await response.json()) as { log: { entries: { id: number; status: string }[] } };
      seen.push(...page.log.entries.map((e) => e.id));
      before = response.headers.get("X-Next-Cursor");
      if (!before) break;
    }
    expect(seen).toHaveLength(11);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    expect(new Set(seen).size).toBe(11);
    const html = await (await app.fetch("/notifications?limit=4", { cookie: admin })).text();
    expect(html).toContain("/notifications?before=");

    // Pruning keeps 30 days: older finished notifications go with their deliveries; an
    // unfinished one stays whatever its age. (No runner from here: the queued one must stay queued.)
    await runner!.stop();
    runner = null;
    const stuck = (await enqueueNotification(db(), {
      kind: "drift",
      title: "Old but queued",
      body: "",
      channels: ["webhook"],
    }))!;
    await db()
      .updateTable("notifications")
      .set({ created_at: Date.now() - 40 * 86_400_000 })
      .execute();
    expect(await pruneNotifications(db(), Date.now() - 30 * 86_400_000)).toBe(11);
    expect((await db().selectFrom("notifications").select("id").execute()).map((r) => r.id)).toEqual([stuck]);
    expect(await db().selectFrom("notification_deliveries").select("notification_id").execute()).toEqual([
      { notification_id: stuck },
    ]);
    await expectNoSecret();
  }, 60_000);

  test("Telegram commands answer only the owner's chat; /stop activates the emergency stop as Telegram", async () => {
    await setUpChannels([]);
    // A stranger first: no answer, nothing changes.
    fakes.queueMessage(STRANGER_CHAT, "/stop");
    fakes.queueMessage(STRANGER_CHAT, "/status");
    expect(await pollTelegramOnce(db(), { appSecret: appSecret(), timeoutSeconds: 0 })).toBe(2);
    expect(fakes.state.telegram).toHaveLength(0);
    expect((await getEmergencyStop(db())).active).toBe(false);

    fakes.queueMessage(OWNER_CHAT, "/status");
    fakes.queueMessage(OWNER_CHAT, "/positions");
    fakes.queueMessage(OWNER_CHAT, "/pnl");
    fakes.queueMessage(OWNER_CHAT, "/stop");
    expect(await pollTelegramOnce(db(), { appSecret: appSecret(), timeoutSeconds: 0 })).toBe(4);
    const replies = fakes.state.telegram;
    expect(replies.map((r) => r.chatId)).toEqual(Array(4).fill(String(OWNER_CHAT)));
    expect(replies[0]!.text).toContain("Emergency stop: off");
    expect(replies[1]!.text).toBe("No open positions.");
    expect(replies[2]!.text).toContain(`All time: +$${toFixed((await getClosedTradesPnl(db())).totalPnL, 2)}`);
    expect(replies[3]!.text).toContain("Emergency stop activated");
    expect((await getEmergencyStop(db())).active).toBe(true);
    const audit = await latestAudit(app, "action", "emergency_stop.activate");
    expect(audit.actor).toBe("telegram");

    // The offset was kept: the same updates are not answered twice.
    expect(await pollTelegramOnce(db(), { appSecret: appSecret(), timeoutSeconds: 0 })).toBe(0);
    expect(fakes.state.getUpdatesOffsets.at(-1)).toBe(fakes.state.updates.at(-1)!.update_id + 1);
    expect(fakes.state.telegram).toHaveLength(4);
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin, json: {} });
    await expectNoSecret();
  });

  test("the screen: saving (with and without JavaScript), secrets never shown back, test message, audit, admins only", async () => {
    // A form post as the browser sends it without JavaScript (checkboxes repeated).
    const form = new URLSearchParams([
      ["intent", "webhook"],
      ["enabled", "on"],
      ["url", DISCORD_URL],
      ["signingSecret", SIGNING_SECRET],
      ["events", "order_filled"],
      ["events", "drift"],
    ]);
    const saved = await app.fetch("/notifications", {
      method: "POST",
      cookie: admin,
      body: form.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(saved.status).toBe(302);
    const settings = (await (await app.fetch("/api/notifications", { cookie: admin })).json()) as {
      channels: {
        channel: string;
        enabled: boolean;
        events: string[];
        secretHints: Record<string, string>;
        settings: Record<string, unknown>;
      }[];
    };
    const webhook = settings.channels.find((c) => c.channel === "webhook")!;
    expect(webhook).toMatchObject({
      enabled: true,
      events: ["order_filled", "drift"],
      settings: { host: "discord.fake" },
      secretHints: { url: "…mnop", signingSecret: "…6789" },
    });
    // A bad field: the page again with the message, nothing saved.
    await expectFormRefused(
      app,
      "/notifications",
      admin,
      { intent: "telegram", chatId: "not a chat", enabled: "on" },
      "Chat id is a number",
    );
    // Turning Telegram on without a token is refused with a clear message.
    const noToken = await api({ intent: "telegram", enabled: true, chatId: "123" });
    expect(noToken.status).toBe(400);
    expect(await noToken.json()).toMatchObject({ error: "Bot token is required to turn telegram notifications on" });

    // Send test message: through the channel at once, in the delivery log.
    const test = await app.fetch("/notifications", {
      method: "POST",
      cookie: admin,
      form: { intent: "test", channel: "webhook" },
    });
    expect(test.status).toBe(302);
    expect(fakes.state.webhook).toHaveLength(1);
    expect(fakes.state.webhook[0]!.json.title).toBe("Test message from PerpDesk");
    const log = (await (await app.fetch("/api/notifications?limit=5", { cookie: admin })).json()) as {
      log: { entries: { channel: string; status: string; kind: string }[] };
    };
    expect(log.log.entries[0]).toMatchObject({ channel: "webhook", status: "sent", kind: "test" });
    // A failing test message says why, without the URL.
    fakes.state.webhookFailures = 1;
    expect((await api({ intent: "test", channel: "webhook" })).status).toBe(502);
    const page = await (await app.fetch("/notifications", { cookie: admin })).text();
    expect(page).toContain("Delivery log");
    expect(page).toContain("HTTP 500");

    // The audit trail names the change, secrets only as "(changed)".
    const audit = await db()
      .selectFrom("audit_entries")
      .selectAll()
      .where("action", "=", "notifications.update")
      .where("target", "=", "notifications:webhook")
      .execute();
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.parse(audit[0]!.changes)).toMatchObject({
      enabled: { after: true },
      urlSecret: { after: "(changed)" },
      signingSecret: { after: "(changed)" },
    });

    // Non-admins: 403 on the screen, its action and the API.
    expect((await app.fetch("/notifications", { cookie: trader })).status).toBe(403);
    expect(
      (
        await app.fetch("/notifications", {
          method: "POST",
          cookie: trader,
          form: { intent: "test", channel: "webhook" },
        })
      ).status,
    ).toBe(403);
    expect((await app.fetch("/api/notifications", { cookie: trader })).status).toBe(403);
    expect((await api({ intent: "test", channel: "webhook" }, trader)).status).toBe(403);
    expect(fakes.state.webhookCalls).toBe(2);
    await expectNoSecret();
  });
});
