// POST /api/webhook/tradingview as TradingView sends it, and every bad input the issue
// lists: each gets its answer and writes nothing but a log entry.
import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { flushRejections } from "#app/services/webhook.server.ts";
import { freshApp, registerVia, rowCount } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { ALERT_PLACEHOLDERS } from "#tests/setup/fixtures.ts";

describe.each(testDialects())("webhook on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let user: string;
  let secret: string;
  const counts = async () => {
    return {
      signals: await rowCount(app, "signals"),
      jobs: await rowCount(app, "jobs"),
      logs: await rowCount(app, "activity_logs"),
    };
  };
  const post = (body: string | object, init: { contentType?: string; query?: string } = {}) =>
    app.fetch(`/api/webhook/tradingview${init.query ?? ""}`, {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "Content-Type": init.contentType ?? "application/json" },
    });

  beforeAll(async () => {
    admin = (await registerVia(app, "hook_admin")).cookie;
    user = (await registerVia(app, "hook_user")).cookie;
    const config = await app.fetch("/api/webhook-config", { cookie: admin });
    expect(config.status).toBe(200);
    secret = ((await config.json()) as { secret: string }).secret;
  });
  beforeEach(async () => {
    // Rejections are tallied per source and reason a minute (webhook-guard.server.ts): start
    // each test with a fresh minute, so its first rejection is written at once.
    await flushRejections(app.database.db, true);
    await app.database.db.deleteFrom("jobs").execute();
    await app.database.db.deleteFrom("signals").execute();
    await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin });
  });

  test("webhook config is admin only and carries URL, secret and a ready-to-paste alert", async () => {
    expect((await app.fetch("/api/webhook-config")).status).toBe(401);
    expect((await app.fetch("/api/webhook-config", { cookie: user })).status).toBe(403);
    const body = (await (await app.fetch("/api/webhook-config", { cookie: admin })).json()) as Record<string, string>;
    expect(body.url).toBe("http://localhost:5000/api/webhook/tradingview");
    expect(body.secret.length).toBeGreaterThanOrEqual(24);
    for (const placeholder of ALERT_PLACEHOLDERS) {
      expect(body.alertMessage).toContain(placeholder);
    }
    expect(body.alertMessage).toContain(body.secret);
  });

  test("a JSON alert becomes one signal and one job in one answer", async () => {
    const response = await post({
      secret,
      action: "BUY",
      symbol: "BTCUSDT.P",
      quantity: "0.01",
      order_type: "market",
      strategy: "s1",
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { success: boolean; signalId: string; status: string };
    expect(body).toMatchObject({ success: true, status: "queued" });
    const signal = await app.database.db
      .selectFrom("signals")
      .selectAll()
      .where("id", "=", body.signalId)
      .executeTakeFirstOrThrow();
    expect(signal).toMatchObject({ action: "buy", symbol: "BTC-PERP", order_type: "market", status: "queued" });
    expect(signal.payload).not.toContain(secret);
    const jobs = await app.database.db.selectFrom("jobs").selectAll().execute();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ task: "execute-signal", status: "created", signal_id: body.signalId });
    const events = await app.database.db
      .selectFrom("events")
      .select(["type", "data"])
      .where("type", "=", "new_signal")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(events.data)).toMatchObject({ id: body.signalId, action: "buy", symbol: "BTC-PERP" });
  });

  test("text/plain bodies and the token query parameter work (TradingView cannot set headers)", async () => {
    const response = await post(
      JSON.stringify({
        action: "sell",
        symbol: "ETH-PERP",
        quantity: 0.5,
        order_type: "limit",
        price: "3500.5",
        timestamp: new Date().toISOString(),
      }),
      { contentType: "text/plain; charset=utf-8", query: `?token=${encodeURIComponent(secret)}` },
    );
    expect(response.status).toBe(200);
    const { signalId } = (await response.json()) as { signalId: string };
    const signal = await app.database.db
      .selectFrom("signals")
      .selectAll()
      .where("id", "=", signalId)
      .executeTakeFirstOrThrow();
    expect(signal.order_type).toBe("limit");
    expect(signal.price).toMatch(/^3500\.50*$/);
  });

  test("the same alert delivered twice (or ten times at once) gives one signal and one job", async () => {
    const body = JSON.stringify({
      secret,
      action: "buy",
      symbol: "SOL-PERP",
      quantity: "2",
      order_type: "market",
      timestamp: "2026-11-21T10:00:00Z",
    });
    const first = await post(body);
    const second = await post(body);
    expect((await first.json()).status).toBe("queued");
    expect(await second.json()).toMatchObject({ success: true, status: "duplicate", duplicate: true });
    const burst = await Promise.all(Array.from({ length: 10 }, () => post(body)));
    expect(burst.every((r) => r.status === 200)).toBe(true);
    const { signals, jobs } = await counts();
    expect(signals).toBe(1);
    expect(jobs).toBe(1);
    // An explicit alert id deduplicates even when the bodies differ.
    await post({
      secret,
      id: "alert-7",
      action: "buy",
      symbol: "XRP-PERP",
      quantity: "10",
      order_type: "market",
      price: "2.1",
    });
    await post({
      secret,
      id: "alert-7",
      action: "buy",
      symbol: "XRP-PERP",
      quantity: "10",
      order_type: "market",
      price: "2.2",
    });
    expect((await counts()).signals).toBe(2);
  });

  const BAD: [string, string | object, number, string | undefined, string][] = [
    ["malformed JSON", "{not json", 400, undefined, "Request body must be a JSON object"],
    ["a JSON array", "[1,2]", 400, undefined, "Request body must be a JSON object"],
    ["no action", { quantity: "1", symbol: "BTC-PERP", order_type: "market" }, 400, "action", "action is required"],
    [
      "a wrong action",
      { action: "hold", quantity: "1", symbol: "BTC-PERP", order_type: "market" },
      400,
      "action",
      "action must be buy or sell",
    ],
    [
      "a numeric symbol",
      { action: "buy", quantity: "1", symbol: 42, order_type: "market" },
      400,
      "symbol",
      "symbol must be a string",
    ],
    [
      "an unknown symbol",
      { action: "buy", quantity: "1", symbol: "DOGE-PERP", order_type: "market" },
      400,
      "symbol",
      "symbol DOGE-PERP is not supported (BTC-PERP, ETH-PERP, SOL-PERP, XRP-PERP)",
    ],
    [
      "a text quantity",
      { action: "buy", quantity: "lots", symbol: "BTC-PERP", order_type: "market" },
      400,
      "quantity",
      "quantity must be a number",
    ],
    [
      "a boolean quantity",
      { action: "buy", quantity: true, symbol: "BTC-PERP", order_type: "market" },
      400,
      "quantity",
      "quantity must be a number",
    ],
    [
      "a zero quantity",
      { action: "buy", quantity: 0, symbol: "BTC-PERP", order_type: "market" },
      400,
      "quantity",
      "quantity must be greater than 0",
    ],
    [
      "a huge quantity",
      { action: "buy", quantity: "1e300", symbol: "BTC-PERP", order_type: "market" },
      400,
      "quantity",
      "quantity is too large",
    ],
    [
      "an infinite price",
      { action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "limit", price: "1e400" },
      400,
      "price",
      "price is too large",
    ],
    [
      "a limit without price",
      { action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "limit" },
      400,
      "price",
      "price is required for limit orders",
    ],
    [
      "a wrong order type",
      { action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "stop" },
      400,
      "order_type",
      "order_type must be market or limit",
    ],
    [
      "a bad timestamp",
      { action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "market", timestamp: "yesterday-ish" },
      400,
      "timestamp",
      "timestamp must be an ISO date or epoch time",
    ],
  ];

  test.each(BAD)(
    "%s → %i naming the field, nothing written but a log entry",
    async (_name, body, status, field, error) => {
      const before = await counts();
      const withSecret = typeof body === "string" ? body : JSON.stringify({ secret, ...body });
      const response = await post(withSecret);
      expect(response.status).toBe(status);
      const answer = (await response.json()) as { error: string; field?: string };
      expect(answer.error).toBe(error);
      expect(answer.field).toBe(field);
      const after = await counts();
      expect(after).toEqual({ signals: before.signals, jobs: before.jobs, logs: before.logs + 1 });
    },
  );

  test("a wrong or missing secret is 401, logged without the secret", async () => {
    const before = await counts();
    const wrong = await post({
      secret: "guess-guess-guess",
      action: "buy",
      quantity: "1",
      symbol: "BTC-PERP",
      order_type: "market",
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ success: false, error: "Invalid or missing webhook secret" });
    const missing = await post({ action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "market" });
    expect(missing.status).toBe(401);
    // The first rejection of the minute is written at once; the second joins the minute's
    // summary line (one per source and reason, with the count).
    expect(await counts()).toEqual({ signals: before.signals, jobs: before.jobs, logs: before.logs + 1 });
    await flushRejections(app.database.db, true);
    expect(await counts()).toEqual({ signals: before.signals, jobs: before.jobs, logs: before.logs + 2 });
    const logs = await app.database.db
      .selectFrom("activity_logs")
      .select(["message", "data"])
      .orderBy("id", "desc")
      .limit(2)
      .execute();
    expect(logs.map((l) => l.message)).toEqual([
      "Webhook rejected 2 times in one minute from one source: Invalid or missing webhook secret",
      "Webhook rejected: Invalid or missing webhook secret",
    ]);
    expect(JSON.stringify(logs)).not.toContain("guess-guess-guess");
    expect(JSON.stringify(await app.database.db.selectFrom("activity_logs").selectAll().execute())).not.toContain(
      secret,
    );
  });

  test("a body over 64 KiB is 413 (a 100 KB alert)", async () => {
    const before = await counts();
    const response = await post(
      JSON.stringify({
        secret,
        action: "buy",
        quantity: "1",
        symbol: "BTC-PERP",
        order_type: "market",
        pad: "x".repeat(100_000),
      }),
    );
    expect(response.status).toBe(413);
    expect((await counts()).signals).toBe(before.signals);
  });

  test("emergency stop: the signal is stored, its job records why, no order is queued", async () => {
    const stop = await app.fetch("/api/emergency-stop", { method: "POST", cookie: user });
    expect(await stop.json()).toEqual({
      success: true,
      message:
        "Emergency stop activated: no new positions are opened until it is reset; stop-loss, take-profit and Close keep working",
    });
    const health = (await (await app.fetch("/api/health")).json()) as {
      systemStatus: { component: string; status: string }[];
    };
    expect(health.systemStatus.find((c) => c.component === "system")?.status).toBe("warning");
    const response = await post({ secret, action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "market" });
    expect(await response.json()).toMatchObject({
      success: true,
      status: "skipped",
      reason: "Emergency stop is active: signal stored, no order sent",
    });
    const jobs = await app.database.db.selectFrom("jobs").selectAll().execute();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      status: "cancelled",
      last_error: "Emergency stop is active: signal stored, no order sent",
    });
    const reset = await app.fetch("/api/reset-emergency-stop", { method: "POST", cookie: admin });
    expect(await reset.json()).toEqual({ success: true, message: "Emergency stop reset: trading resumed" });
  });

  test("rotating the secret makes the old one fail at once (admin only)", async () => {
    expect((await app.fetch("/api/webhook-config/rotate", { method: "POST", cookie: user })).status).toBe(403);
    const rotated = (await (
      await app.fetch("/api/webhook-config/rotate", { method: "POST", cookie: admin })
    ).json()) as { secret: string };
    expect(rotated.secret).not.toBe(secret);
    expect(
      (await post({ secret, action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "market" })).status,
    ).toBe(401);
    expect(
      (await post({ secret: rotated.secret, action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "market" }))
        .status,
    ).toBe(200);
    secret = rotated.secret;
  });

  test("trading config: defaults of SPEC §9, admin-only changes, the take-profit rule", async () => {
    const got = (await (await app.fetch("/api/trading-config", { cookie: user })).json()) as {
      config: Record<string, unknown>;
    };
    expect(got.config).toMatchObject({
      takeProfits: [
        { portfolio: 0.2, priceDeviation: 0.005, enabled: true },
        { portfolio: 0.3, priceDeviation: 0.01, enabled: true },
        { portfolio: 0.5, priceDeviation: 0.015, enabled: true },
      ],
      stopLossOffset: 0.005,
      trailingStop: { activation: 0.012, execute: 0.006 },
      orderSizeMultiplier: "1",
      signalAmountType: "multiplier",
      applyLeverageToSignals: false,
      applyAmountControlToSignals: false,
      autoTradingEnabled: true,
    });
    expect(
      (await app.fetch("/api/trading-config", { method: "POST", cookie: user, json: { autoTradingEnabled: false } }))
        .status,
    ).toBe(403);
    const bad = await app.fetch("/api/trading-config", {
      method: "POST",
      cookie: admin,
      json: {
        config: {
          takeProfits: [
            { portfolio: 0.5, priceDeviation: 0.01, enabled: true },
            { portfolio: 0.4, priceDeviation: 0.02, enabled: true },
          ],
        },
      },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe(
      "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 90%",
    );
    const ok = await app.fetch("/api/trading-config", {
      method: "POST",
      cookie: admin,
      json: { autoTradingEnabled: false },
    });
    expect(ok.status).toBe(200);
    const response = await post({ secret, action: "buy", quantity: "1", symbol: "BTC-PERP", order_type: "market" });
    expect(await response.json()).toMatchObject({
      status: "skipped",
      reason: "Auto trading is disabled: signal stored, no order sent",
    });
    await app.fetch("/api/trading-config", {
      method: "POST",
      cookie: admin,
      json: { config: { autoTradingEnabled: true } },
    });
  });
});
