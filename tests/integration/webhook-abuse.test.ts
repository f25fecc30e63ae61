// The webhook against strangers (issue 10): a flood of bad-secret posts writes a handful of
// rows and valid alerts still answer fast; a source rejected too often gets 429 (but never a
// request with the right secret); the sender allowlist; an undecryptable stored secret is a
// 503 with an error in health and one log line; the worker prunes old events and jobs.
import { beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "#app/core/env.ts";
import { REJECTS_PER_MINUTE, TRADINGVIEW_ADDRESSES } from "#app/services/webhook-guard.server.ts";
import { flushRejections } from "#app/services/webhook.server.ts";
import { appendEvents } from "#db/queries/events.ts";
import { createApp } from "#server.ts";
import {
  type TestApp,
  createTestApp,
  freshApp,
  loadBuild,
  registerVia,
  rowCount,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { pruneOnce } from "#worker/housekeeping.ts";

const count = (app: TestApp, table: "activity_logs" | "events" | "signals") => rowCount(app, table);

const post = (app: TestApp, body: unknown, ip: string) =>
  app.fetch("/api/webhook/tradingview", {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "Content-Type": "text/plain", "X-Forwarded-For": ip },
  });

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

describe.each(testDialects())("webhook abuse on %s", (dialect) => {
  const app = freshApp(dialect, { TRUST_PROXY: "true" });
  let secret: string;
  beforeAll(async () => {
    const admin = (await registerVia(app, "hook_owner")).cookie;
    secret = await webhookSecret(app, admin);
    await app.fetch("/api/trading-config", { method: "POST", cookie: admin, json: { autoTradingEnabled: false } });
  });

  test("2,000 bad-secret posts write a handful of rows; valid alerts sent meanwhile answer 200 and fast", async () => {
    await flushRejections(app.database.db, true);
    const lastLog = await app.database.db
      .selectFrom("activity_logs")
      .select((eb) => eb.fn.max("id").as("id"))
      .executeTakeFirst();
    const before = {
      logs: await count(app, "activity_logs"),
      events: await count(app, "events"),
      signals: await count(app, "signals"),
      lastLogId: Number(lastLog?.id ?? 0),
    };
    const valid: number[] = [];
    const flood = (async () => {
      const answers: number[] = [];
      for (let batch = 0; batch < 20; batch++) {
        const responses = await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            post(
              app,
              {
                secret: `guess-${batch}-${i}`,
                action: "buy",
                symbol: "BTCUSDT.P",
                quantity: "1",
                order_type: "market",
              },
              "203.0.113.50",
            ),
          ),
        );
        answers.push(...responses.map((r) => r.status));
      }
      return answers;
    })();
    const alerts = (async () => {
      for (let i = 0; i < 40; i++) {
        const started = performance.now();
        const response = await post(
          app,
          {
            secret,
            id: `valid-${dialect}-${i}`,
            action: "buy",
            symbol: "BTCUSDT.P",
            quantity: "0.001",
            order_type: "market",
          },
          "52.89.214.238",
        );
        valid.push(performance.now() - started);
        expect(response.status).toBe(200);
      }
    })();
    const [statuses] = await Promise.all([flood, alerts]);
    expect(statuses.filter((s) => s === 401)).toHaveLength(REJECTS_PER_MINUTE);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2000 - REJECTS_PER_MINUTE);
    await flushRejections(app.database.db, true);
    const after = {
      logs: await count(app, "activity_logs"),
      events: await count(app, "events"),
      signals: await count(app, "signals"),
    };
    expect(after.signals - before.signals).toBe(40);
    // The 2,000 rejections: the minute's first line and one summary with the count.
    const rejectedLines = await app.database.db
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Webhook rejected%")
      .where("id", ">", before.lastLogId)
      .execute();
    expect(rejectedLines).toHaveLength(2);
    // Everything else written meanwhile belongs to the 40 valid signals (their lines and events).
    const validLines = await app.database.db
      .selectFrom("activity_logs")
      .select("id")
      .where("message", "not like", "Webhook rejected%")
      .where("id", ">", before.lastLogId)
      .execute();
    expect(after.logs - before.logs).toBe(validLines.length + 2);
    expect(validLines.length).toBeLessThanOrEqual(40 * 2);
    const summary = await app.database.db
      .selectFrom("activity_logs")
      .select(["message", "data"])
      .where("message", "like", "Webhook rejected 2000 times%")
      .execute();
    expect(summary).toHaveLength(1);
    console.log(
      `[webhook-abuse ${dialect}] valid alerts during the flood: p50 ${percentile(valid, 50).toFixed(1)} ms, p90 ${percentile(valid, 90).toFixed(1)} ms, max ${Math.max(...valid).toFixed(1)} ms`,
    );
    // 40 samples: p99 would be the single slowest, which one fsync or GC pause decides when
    // the whole suite shares two cores (it measured 140 ms alone, 330-400 ms in the full
    // run). The flood must not starve valid alerts: the typical one fast, nearly all under
    // 250 ms, none near TradingView's 3 s timeout.
    expect(percentile(valid, 50)).toBeLessThan(50);
    expect(percentile(valid, 90)).toBeLessThan(250);
    expect(Math.max(...valid)).toBeLessThan(1000);
  });

  test("a source over the rejection limit gets 429 unread, yet its alert with the right secret goes through", async () => {
    for (let i = 0; i < REJECTS_PER_MINUTE; i++) expect((await post(app, "not json", "198.51.100.9")).status).toBe(400);
    expect((await post(app, "not json", "198.51.100.9")).status).toBe(429);
    expect(
      (
        await post(
          app,
          { secret: "nope", action: "buy", symbol: "BTCUSDT.P", quantity: "1", order_type: "market" },
          "198.51.100.9",
        )
      ).status,
    ).toBe(429);
    expect(
      (
        await post(
          app,
          {
            secret,
            id: `limited-${dialect}`,
            action: "buy",
            symbol: "BTCUSDT.P",
            quantity: "0.001",
            order_type: "market",
          },
          "198.51.100.9",
        )
      ).status,
    ).toBe(200);
    // Another source is not affected.
    expect((await post(app, "not json", "198.51.100.10")).status).toBe(400);
  });

  test("WEBHOOK_ALLOWLIST=tradingview: other senders get 403 before anything is read", async () => {
    const other = await createTestApp(dialect, { TRUST_PROXY: "true", WEBHOOK_ALLOWLIST: "tradingview" });
    try {
      const admin = (await registerVia(other, "allow_owner")).cookie;
      const otherSecret = await webhookSecret(other, admin);
      const refused = await post(
        other,
        { secret: otherSecret, action: "buy", symbol: "BTCUSDT.P", quantity: "0.001", order_type: "market" },
        "203.0.113.77",
      );
      expect(refused.status).toBe(403);
      expect(await count(other, "signals")).toBe(0);
      for (const address of TRADINGVIEW_ADDRESSES) {
        expect(
          (
            await post(
              other,
              {
                secret: otherSecret,
                id: `tv-${address}`,
                action: "buy",
                symbol: "BTCUSDT.P",
                quantity: "0.001",
                order_type: "market",
              },
              address,
            )
          ).status,
        ).toBe(200);
      }
    } finally {
      await other.cleanup();
    }
  });

  test("the Webhook Config screen's allowlist: bad entries refused, saved list enforced at once, emptied again", async () => {
    const admin = (
      await app.fetch("/api/login", { method: "POST", json: { username: "hook_owner", password: "secret123" } })
    ).headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const save = (allowlist: string) =>
      app.fetch("/webhook", { method: "POST", cookie: admin, form: { intent: "allowlist", allowlist } });
    const bad = await save("tradingview, 999.1.1.1");
    expect(bad.status).toBe(302);
    expect(decodeURIComponent(bad.headers.get("location")!.replace(/\+/g, " "))).toContain(
      "999.1.1.1 is not an IP address",
    );
    expect(
      await app.database.db
        .selectFrom("settings")
        .select("value")
        .where("key", "=", "webhook_allowlist")
        .executeTakeFirst(),
    ).toBeUndefined();

    const page = await (await app.fetch("/webhook", { cookie: admin })).text();
    expect(page).toContain('data-testid="allowlist-card"');
    expect(page).toContain("Now: any address with the secret.");

    expect((await save("TradingView 198.51.100.9")).status).toBe(302);
    try {
      const body = (id: string) => ({
        secret,
        id,
        action: "buy",
        symbol: "BTCUSDT.P",
        quantity: "0.001",
        order_type: "market",
      });
      expect((await post(app, body("allow-1"), "203.0.113.78")).status).toBe(403);
      expect((await post(app, body("allow-2"), "198.51.100.9")).status).toBe(200);
      expect((await post(app, body("allow-3"), TRADINGVIEW_ADDRESSES[0]!)).status).toBe(200);
      expect(await (await app.fetch("/webhook", { cookie: admin })).text()).toContain("Now: 5 addresses");
    } finally {
      expect((await save("")).status).toBe(302);
    }
    expect(
      (
        await post(
          app,
          { secret, id: "allow-4", action: "buy", symbol: "BTCUSDT.P", quantity: "0.001", order_type: "market" },
          "203.0.113.79",
        )
      ).status,
    ).toBe(200);
  });

  /** The same database served by an app started with another APP_SECRET (in production mode). */
  const appWithSecret = async (appSecret: string) =>
    createApp({
      config: loadConfig({
        NODE_ENV: "production",
        APP_SECRET: appSecret,
        DATA_DIR: "/tmp/perpdesk-test-unused",
        TRUST_PROXY: "true",
      }),
      database: app.database,
      build: await loadBuild(),
      mode: "production",
    });

  test("APP_SECRET changed: 503 with a clear error, the webhook component in error, one log line", async () => {
    const changed = await appWithSecret("a-different-secret-0123456789abcdefghijkl");
    const send = () =>
      changed.request("http://localhost:5000/api/webhook/tradingview", {
        method: "POST",
        body: JSON.stringify({ secret, action: "buy", symbol: "BTCUSDT.P", quantity: "1", order_type: "market" }),
        headers: { "Content-Type": "text/plain" },
      });
    const answers = [await send(), await send(), await send()];
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { error: string }).error).toMatch(/APP_SECRET/);
    }
    const health = (await (await changed.request("http://localhost:5000/api/health")).json()) as {
      systemStatus: { component: string; status: string }[];
    };
    expect(health.systemStatus.find((c) => c.component === "webhook")!.status).toBe("error");
    const lines = await app.database.db
      .selectFrom("activity_logs")
      .select("message")
      .where("message", "like", "Webhook secret cannot be decrypted%")
      .execute();
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(1);
  });

  test("APP_SECRET changed: Webhook Config answers normally, says the secret cannot be read and offers a new one (issue 23)", async () => {
    // The operator the 503 sends here must not meet a 500: the page and the API say what happened.
    const changed = await appWithSecret("yet-another-secret-0123456789abcdefghijkl");
    const at = (path: string, init: RequestInit = {}) =>
      changed.request(`http://localhost:5000${path}`, { redirect: "manual", ...init });
    // The old session cookie was signed under the old APP_SECRET: sign in again.
    const login = await at("/api/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "hook_owner", password: "secret123" }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith("tv_session="))!
      .split(";")[0]!;

    const api = await at("/api/webhook-config", { headers: { Cookie: cookie } });
    expect(api.status).toBe(200);
    const body = (await api.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      secret: null,
      secretReadable: false,
      alertMessage: null,
      url: "http://localhost:5000/api/webhook/tradingview",
    });
    expect(body.secretError).toMatch(/cannot be read with the current APP_SECRET/);

    const page = await at("/webhook", { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-testid="secret-unreadable"');
    expect(html).toContain("cannot be read with the current APP_SECRET");
    expect(html).toContain("Generate a new secret");
    expect(html).toContain('name="intent" value="rotate"');
    expect(html).not.toMatch(/\bat [\w.]+ \(|node_modules/); // no stack trace
    expect(html).not.toContain('data-testid="alert-message"');

    // A test alert cannot be signed: a toast says why, no 500.
    const form = (fields: Record<string, string>) => ({
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    const test = await at("/webhook", form({ intent: "test-alert" }));
    expect(test.status).toBe(302);
    expect(test.headers.get("location")).toBe("/webhook");

    // Generating a new secret (the offered form, no JavaScript) makes it readable again and the webhook takes it.
    const rotated = await at("/webhook", form({ intent: "rotate" }));
    expect(rotated.status).toBe(302);
    const after = (await (await at("/api/webhook-config", { headers: { Cookie: cookie } })).json()) as {
      secret: string;
      secretReadable: boolean;
      secretError: string | null;
    };
    expect(after).toMatchObject({ secretReadable: true, secretError: null });
    expect(after.secret).toMatch(/.{16,}/);
    const alert = await at("/api/webhook/tradingview", {
      method: "POST",
      body: JSON.stringify({
        secret: after.secret,
        action: "buy",
        symbol: "BTCUSDT.P",
        quantity: "1",
        order_type: "market",
      }),
      headers: { "Content-Type": "text/plain" },
    });
    expect(alert.status).toBe(200);
    const audit = await app.database.db
      .selectFrom("audit_entries")
      .select(["actor", "action"])
      .where("action", "=", "webhook_secret.rotate")
      .execute();
    expect(audit).toEqual([{ actor: "hook_owner", action: "webhook_secret.rotate" }]);

    // Back to this app's APP_SECRET for the tests after this one.
    const owner = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "hook_owner", password: "secret123" },
    });
    const back = await app.fetch("/api/webhook-config/rotate", {
      method: "POST",
      cookie: owner.headers
        .getSetCookie()
        .find((c) => c.startsWith("tv_session="))!
        .split(";")[0],
    });
    expect(back.status).toBe(200);
    secret = ((await back.json()) as { secret: string }).secret;
  });

  test("housekeeping prunes events and finished jobs past their retention, nothing younger", async () => {
    const now = Date.now();
    await appendEvents(app.database.db, [{ type: "system_status", data: { old: true } }]);
    await app.database.db
      .updateTable("events")
      .set({ created_at: now - 48 * 3_600_000 })
      .where("type", "=", "system_status")
      .execute();
    const eventsBefore = await count(app, "events");
    const old = await app.database.db
      .selectFrom("events")
      .select("id")
      .where("created_at", "<", now - 24 * 3_600_000)
      .execute();
    expect(old.length).toBeGreaterThan(0);
    const result = await pruneOnce(app.database.db, { eventsHours: 24, jobsDays: 7 }, now);
    expect(result.events).toBe(old.length);
    expect(await count(app, "events")).toBe(eventsBefore - old.length);
  });
});
