// The Webhook Config screen and the Activity Logs screen as a browser without JavaScript
// gets them: server-rendered HTML, and the rotate form as a plain form post.
import { beforeAll, describe, expect, test } from "vitest";
import { recordActivity } from "#db/queries/activity-logs.ts";
import { freshApp, html, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { ALERT_PLACEHOLDERS } from "#tests/setup/fixtures.ts";

describe.each(testDialects())("webhook and logs screens on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let user: string;
  const webhookConfig = async () => {
    const response = await app.fetch("/api/webhook-config", { cookie: admin });
    expect(response.status).toBe(200);
    return (await response.json()) as { url: string; secret: string; port: number; alertMessage: string };
  };

  beforeAll(async () => {
    admin = (await registerVia(app, "screen_admin")).cookie;
    user = (await registerVia(app, "screen_user")).cookie;
  });

  test("the admin's webhook page shows the URL, the port note, the alert placeholders and the signal format", async () => {
    const config = await webhookConfig();
    const response = await app.fetch("/webhook", { cookie: admin });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const page = await response.text();
    expect(page).toContain("Webhook Config");
    expect(page).toContain(config.url);
    expect(config.url).toBe("http://localhost:5000/api/webhook/tradingview");
    expect(page).toContain("TradingView only delivers webhooks to ports 80 and 443");
    expect(page).toContain("This app listens on port 5000");
    for (const placeholder of ALERT_PLACEHOLDERS) {
      expect(page).toContain(placeholder);
    }
    expect(page).toContain('data-testid="webhook-status"');
    expect(page).toMatch(/>(Online|Offline)</);
    expect(page).toContain("Rotate secret");
    expect(page).toContain('name="intent" value="rotate"');
    for (const text of [
      "Signal format",
      "order_type",
      "alert_id",
      "BTC-PERP",
      "BTCUSDT.P",
      "64 KiB",
      "Enable",
      "Webhook URL",
    ]) {
      expect(page.toLowerCase()).toContain(text.toLowerCase());
    }
  });

  test("the page shows what a signal's position gets (from the trading config) and how tickers map", async () => {
    const page = await (await app.fetch("/webhook", { cookie: admin })).text();
    expect(page).toContain('data-testid="signal-defaults"');
    for (const text of [
      "Take profit",
      "20% at +0.5%, 30% at +1.0%, 50% at +1.5%",
      "0.5% from the entry price",
      "Arms at +1.2%, closes on a 0.6% retrace",
    ]) {
      expect(page, text).toContain(text);
    }
    const rows = [...page.matchAll(/data-testid="ticker-mapping"[^>]*>(.*?)<\/tr>/g)].map((m) =>
      m[1]!
        .replace(/<style[^>]*>.*?<\/style>/g, "")
        .replace(/<[^>]+>/g, "")
        .replace(/<!-- -->/g, ""),
    );
    expect(rows).toEqual([
      "BINANCE:ETHUSDT→ ETH-PERP",
      "ETHUSDT.P→ ETH-PERP",
      "COINBASE:BTC-USD→ BTC-PERP",
      "BTCUSD→ BTC-PERP",
      "SOLUSDC→ SOL-PERP",
      "XRP-PERP→ XRP-PERP",
    ]);
  });

  test("a user gets 403 for the page and cannot rotate; anonymous goes to login", async () => {
    const page = await app.fetch("/webhook", { cookie: user });
    expect(page.status).toBe(403);
    const before = await webhookConfig();
    const denied = await app.fetch("/webhook", { method: "POST", cookie: user, form: { intent: "rotate" } });
    expect(denied.status).toBe(403);
    const anonymous = await app.fetch("/webhook", { method: "POST", form: { intent: "rotate" } });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/login/);
    expect((await webhookConfig()).secret).toBe(before.secret);
  });

  test("rotating as a plain form post changes the secret and the page then shows the new one", async () => {
    const before = await webhookConfig();
    const response = await app.fetch("/webhook", { method: "POST", cookie: admin, form: { intent: "rotate" } });
    expect(response.status).toBe(302);
    const location = response.headers.get("location")!;
    expect(location).toBe("/webhook?rotated=1");
    const flash = response.headers.getSetCookie().find((c) => !c.startsWith("tv_session="));
    expect(flash).toBeTruthy();
    const after = await webhookConfig();
    expect(after.secret).not.toBe(before.secret);
    expect(after.alertMessage).toContain(after.secret);

    // The redirect target, with the flash cookie: the toast and the new secret, revealed.
    const cookie = `${admin}; ${flash!.split(";")[0]}`;
    const page = await (await app.fetch(location, { cookie })).text();
    expect(page).toContain("Webhook secret rotated");
    expect(page).toContain(`value="${after.secret}"`);
    expect(page).not.toContain(before.secret);

    // The old secret no longer opens the webhook; the rotation is in the log.
    const old = await app.fetch("/api/webhook/tradingview", {
      method: "POST",
      json: { secret: before.secret, action: "buy", symbol: "BTC-PERP", quantity: 1, order_type: "market" },
    });
    expect(old.status).toBe(401);
    const logs = (await (await app.fetch("/api/logs?limit=20&type=webhook", { cookie: admin })).json()) as {
      message: string;
    }[];
    expect(logs.some((l) => l.message === "Webhook secret rotated by screen_admin")).toBe(true);
  });

  test("an unknown intent is a 400 and changes nothing", async () => {
    const before = await webhookConfig();
    const response = await app.fetch("/webhook", { method: "POST", cookie: admin, form: { intent: "explode" } });
    expect(response.status).toBe(400);
    expect((await webhookConfig()).secret).toBe(before.secret);
  });

  test("/logs renders the latest entries on the server, newest first, with a data preview", async () => {
    await recordActivity(app.database.db, { type: "system", level: "success", message: "Older screen test entry" });
    await recordActivity(app.database.db, {
      type: "trade",
      level: "error",
      message: "Newest screen test entry",
      data: { symbol: "ETH-PERP", side: "sell", quantity: "0.5", price: "3400", reason: "insufficient margin" },
    });
    for (const cookie of [user, admin]) {
      const response = await app.fetch("/logs", { cookie });
      expect(response.status).toBe(200);
      const page = await response.text();
      expect(page).toContain("Activity Logs");
      expect(page).toContain('data-testid="activity-log-entry"');
      const newest = page.indexOf("Newest screen test entry");
      const older = page.indexOf("Older screen test entry");
      expect(newest).toBeGreaterThan(0);
      expect(older).toBeGreaterThan(newest);
      // The newest entry: error level, its type, and 3 of its 5 data entries plus "+2 more".
      const entry = page.slice(page.lastIndexOf('data-testid="activity-log-entry"', newest), older);
      expect(entry).toContain('data-level="error"');
      expect(entry).toContain('data-type="trade"');
      expect(entry.match(/data-testid="activity-log-data-entry"/g)).toHaveLength(3);
      expect(entry).toContain("+2 more");
      expect(entry).toContain(html("ETH-PERP"));
      expect(entry).not.toContain("insufficient margin");
      expect(page).toContain("Export to CSV");
      expect(page).toContain("Filter");
    }
  });

  test("/logs needs a login", async () => {
    const response = await app.fetch("/logs");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/login?redirectTo=%2Flogs");
  });
});
