// The dashboard as served (server-rendered, as without JavaScript) and its form posts.
import { describe, expect, test } from "vitest";
import {
  cookieFrom,
  freshApp,
  queuedManualTrade,
  registeredAccounts,
  sendSignal,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("dashboard on %s", (dialect) => {
  const app = freshApp(dialect);
  const cookies = registeredAccounts(app, { admin: "dash_admin", user: "dash_user" });

  test("renders every panel server-side, with the empty states of SPEC §2", async () => {
    for (const path of ["/", "/dashboard"]) {
      const html = await (await app.fetch(path, { cookie: cookies.admin })).text();
      for (const text of [
        "Dashboard",
        "Webhook Status",
        "Exchange API",
        "Active Trades",
        "24h P&amp;L",
        "Performance Statistics",
        "Signals",
        "No signals received yet",
        "Waiting for TradingView webhooks...",
        "Manual Trading",
        "Activity Log",
        "Last signal: No signals yet",
        "Emergency Stop",
      ]) {
        expect(html, `${path}: ${text}`).toContain(text);
      }
      expect(html).toContain("http://localhost:5000/api/webhook/tradingview");
      // The Activity Log's Filter and Export work without JavaScript: links to the filterable
      // Activity Logs screen and to the CSV of every entry.
      expect(html).toMatch(/<a [^>]*href="\/logs"[^>]*data-testid="activity-log-filter-button"/);
      expect(html).toMatch(
        /<a [^>]*href="\/api\/logs\?format=csv"[^>]*download=""[^>]*data-testid="activity-log-export"/,
      );
    }
    const csv = await app.fetch("/api/logs?format=csv", { cookie: cookies.user });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  });

  test("the webhook URL box is for admins only", async () => {
    const html = await (await app.fetch("/dashboard", { cookie: cookies.user })).text();
    expect(html).not.toContain("http://localhost:5000/api/webhook/tradingview");
    expect(html).not.toContain("Webhook Endpoint");
  });

  test("emergency stop and reset work as plain form posts (redirect with a toast)", async () => {
    const stop = await app.fetch("/dashboard", {
      method: "POST",
      cookie: cookies.user,
      form: { intent: "emergency-stop" },
    });
    expect(stop.status).toBe(302);
    expect(stop.headers.get("location")).toBe("/dashboard");
    const toast = cookieFrom(stop, "tv_toast")!;
    const page = await (await app.fetch("/dashboard", { cookie: `${cookies.user}; ${toast}` })).text();
    expect(page).toContain("Emergency Stop Activated");
    // A trader may stop but not resume: the header says who can; the admin's has the Reset button.
    expect(page).toContain("Emergency stop active: an admin resets it");
    expect(page).not.toContain("Reset Emergency Stop");
    expect(await (await app.fetch("/dashboard", { cookie: cookies.admin })).text()).toContain("Reset Emergency Stop");
    // Forms on an index route post to "/?index" (Remix adds it).
    const reset = await app.fetch("/?index", {
      method: "POST",
      cookie: cookies.admin,
      form: { intent: "reset-emergency-stop" },
    });
    expect(reset.status).toBe(302);
    const after = await (await app.fetch("/", { cookie: `${cookies.user}; ${cookieFrom(reset, "tv_toast")!}` })).text();
    expect(after).toContain("Emergency Stop Reset");
  });

  test("with JavaScript the same posts answer JSON with the toast", async () => {
    const stop = await app.fetch("/dashboard?_data=routes%2F_app%2B%2Fdashboard", {
      method: "POST",
      cookie: cookies.user,
      form: { intent: "emergency-stop", _js: "1" },
    });
    expect(stop.status).toBe(200);
    expect(await stop.json()).toMatchObject({ toast: { title: "Emergency Stop Activated", variant: "destructive" } });
    const reset = await app.fetch("/dashboard?_data=routes%2F_app%2B%2Fdashboard", {
      method: "POST",
      cookie: cookies.admin,
      form: { intent: "reset-emergency-stop", _js: "1" },
    });
    expect(await reset.json()).toMatchObject({ toast: { title: "Emergency Stop Reset" } });
  });

  test("the manual order form: SPEC §5 messages, then a queued trade and a toast saying so", async () => {
    const placeOrder = (fields: Record<string, string>) =>
      app.fetch("/dashboard", {
        method: "POST",
        cookie: cookies.user,
        form: { intent: "place-order", side: "buy", symbol: "ETH-PERP", amountType: "quantity", ...fields },
      });
    for (const [fields, message] of [
      [{ orderType: "market", quantity: "" }, "Amount is required"],
      [{ orderType: "limit", quantity: "0.1" }, "Price must be a positive number greater than 0 for limit orders"],
      [{ orderType: "market", quantity: "-1" }, "Quantity must be a positive number greater than 0"],
    ] as const) {
      const refused = await placeOrder(fields);
      expect(refused.status, message).toBe(400);
      expect(await refused.text()).toContain(message);
    }

    const ok = await placeOrder({
      side: "sell",
      orderType: "limit",
      quantity: "0.1",
      price: "2500",
      leverage: "3",
      marginType: "isolated",
    });
    expect(ok.status).toBe(302);
    const page = await (
      await app.fetch("/dashboard", { cookie: `${cookies.user}; ${cookieFrom(ok, "tv_toast")!}` })
    ).text();
    expect(page).toContain("Order queued");
    expect(page).toContain("SELL order for ETH-PERP is queued");
    const trade = await queuedManualTrade(app);
    expect(trade).toMatchObject({
      symbol: "ETH-PERP",
      side: "sell",
      order_type: "limit",
      status: "pending",
      leverage: 3,
      margin_type: "isolated",
    });
  });

  test("dashboard stats: the cards' numbers and the system status list", async () => {
    const stats = (await (await app.fetch("/api/dashboard/stats", { cookie: cookies.user })).json()) as {
      stats: Record<string, unknown>;
      systemStatus: { component: string }[];
    };
    expect(stats.stats).toMatchObject({ activeTrades: 0, totalSignals: 0 });
    expect(stats.stats.todayPnL).toBe("0");
    expect(stats.systemStatus.map((s) => s.component).sort()).toEqual([
      "coinbase_api",
      "database",
      "system",
      "webhook",
      "worker",
    ]);
  });

  test("every document links the one stylesheet built at build time, cached for a year, and it defines every class the page uses", async () => {
    const html = await (await app.fetch("/dashboard", { cookie: cookies.admin })).text();
    const href = html.match(/<link rel="stylesheet" href="(\/build\/css-bundle-[A-Z0-9]+\.css)"\/>/);
    expect(href, "the <link> in <head>").not.toBeNull();
    expect(html.indexOf(href![0])).toBeLessThan(html.indexOf("</head>"));
    const css = await app.fetch(href![1]);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(css.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const text = await css.text();
    // The theme's palette as variables, and the rows' global classes.
    expect(text).toMatch(/^:root\{--[\w-]+: dark;--[\w-]+: #3b82f6;/);
    expect(text).toContain(".pd-td{");
    // Every class on the page is MUI's (emotion writes those into the document) or the bundle's.
    const classes = new Set([...html.matchAll(/class="([^"]*)"/g)].flatMap((m) => m[1].split(/\s+/)).filter(Boolean));
    const own = [...classes].filter((c) => !/^(Mui|css-)/.test(c));
    expect(own.length).toBeGreaterThan(40);
    const undefinedClasses = own.filter((c) => !text.includes(`.${c}`));
    expect(undefinedClasses).toEqual([]);
    // Nothing is compiled per request any more: the old runtime stylesheet is gone.
    expect((await app.fetch("/lean.css", { cookie: cookies.admin })).status).toBe(404);
  });

  test("a signal row shows the ticker the alert sent beside the product it became", async () => {
    const secret = await webhookSecret(app, cookies.admin);
    expect(
      (
        await sendSignal(app, secret, {
          action: "buy",
          symbol: "BINANCE:ETHUSDT",
          quantity: "0.01",
          order_type: "market",
          id: "ticker-1",
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await sendSignal(app, secret, {
          action: "sell",
          symbol: "BTC-PERP",
          quantity: "0.001",
          order_type: "market",
          id: "ticker-2",
        })
      ).status,
    ).toBe(200);
    const page = await (await app.fetch("/dashboard", { cookie: cookies.user })).text();
    const tickers = [...page.matchAll(/data-testid="signal-ticker"[^>]*>([^<]*)</g)].map((m) => m[1]);
    expect(tickers).toEqual([" (alert: BINANCE:ETHUSDT)"]);
  });

  test("the page's loader data is what the panels render (issue 24): rows cut to their fields, log lines to their preview", async () => {
    const secret = await webhookSecret(app, cookies.admin);
    const sent = await sendSignal(app, secret, {
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "0.01",
      order_type: "market",
      id: "loader-shape-1",
      strategy: "shape",
    });
    expect(sent.status).toBe(200);
    const data = (await (
      await app.fetch("/dashboard?_data=routes%2F_app%2B%2Fdashboard", { cookie: cookies.admin })
    ).json()) as Record<string, unknown> & {
      stats: Record<string, unknown>;
      signals: Record<string, unknown>[];
      trades: Record<string, unknown>[];
      positions: Record<string, unknown>[];
      logs: { message: string; data: Record<string, unknown>; dataMore?: number }[];
    };
    // The status list is the layout's; the dashboard sends the cards' numbers only.
    expect(Object.keys(data.stats).sort()).toEqual(["activeTrades", "systemHealth", "todayPnL", "totalSignals"]);
    const signal = data.signals.find((s) => (s.payload as Record<string, unknown>).symbol === "ETH-PERP")!;
    expect(Object.keys(signal).sort()).toEqual(
      [
        "action",
        "createdAt",
        "id",
        "latency",
        "orderType",
        "payload",
        "price",
        "processed",
        "quantity",
        "status",
        "statusReason",
        "symbol",
      ].sort(),
    );
    // Of the alert, only what a row reads (the ticker sent, TEST, a target).
    expect(signal.payload).toEqual({ symbol: "ETH-PERP" });
    for (const trade of data.trades)
      expect(Object.keys(trade).sort()).toEqual(
        [
          "errorMessage",
          "executedPrice",
          "executedQuantity",
          "id",
          "price",
          "quantity",
          "side",
          "source",
          "status",
          "symbol",
        ].sort(),
      );
    for (const position of data.positions)
      expect(Object.keys(position).sort()).toEqual(
        ["currentPrice", "entryPrice", "id", "remainingQuantity", "side", "symbol", "unrealizedPnl"].sort(),
      );
    // A log line carries its preview (3 entries, as text) and how many entries it left out.
    const received = data.logs.find((l) => l.message === "Signal received: BUY 0.01 ETH-PERP")!;
    expect(Object.keys(received.data)).toHaveLength(3);
    expect(Object.values(received.data).every((v) => typeof v === "string")).toBe(true);
    expect(received.dataMore).toBeGreaterThan(0);
    const full = (await (await app.fetch("/api/logs?limit=20", { cookie: cookies.admin })).json()) as {
      message: string;
      data: Record<string, unknown>;
    }[];
    const whole = full.find((l) => l.message === received.message)!;
    expect(Object.keys(whole.data)).toHaveLength(3 + received.dataMore!);
    // The page shows the same "+N more" as a page built from the whole line.
    const html = await (await app.fetch("/dashboard", { cookie: cookies.admin })).text();
    expect(html).toContain(`+${received.dataMore} more`);
  });
});
