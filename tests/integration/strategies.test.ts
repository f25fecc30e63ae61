// Strategies (issue 12, docs/decisions/027-strategies.md), on both dialects: two strategies
// with their own secrets, sizing and rule overrides trade through the real webhook, runner and
// simulator; a secret cannot trade another strategy's symbols; a disabled strategy stores its
// alerts without trading; the global secret stays the default strategy; one owner per symbol;
// the filters and per-strategy figures of the APIs; who may read and who may change.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { D } from "#app/core/decimal.ts";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import {
  expectFormRefused,
  freshApp,
  registeredAccounts,
  sendSignal,
  signalFinal,
  webhookSecret,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

interface View {
  id: string;
  name: string;
  secret: string | null;
  webhookUrl: string;
  alertMessage: string;
  enabled: boolean;
}

describe.each(testDialects())("strategies on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, { admin: "strat_admin", viewer: ["strat_viewer", "viewer"] });
  let globalSecret: string;
  let runner: Runner | null = null;
  let alpha: View;
  let beta: View;
  let gamma: View;
  const db = () => app.database.db;
  const sim = () => new SimulatorAdapter(db());

  const create = async (body: Record<string, unknown>) => {
    const response = await app.fetch("/api/strategies", { method: "POST", cookie: cookies.admin, json: body });
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as View;
  };

  /** Sends an alert and waits until its signal is final: its status, reason and trade. */
  let n = 0;
  const alert = async (secret: string, body: Record<string, unknown>) => {
    n += 1;
    const response = await sendSignal(app, secret, { id: `alert-${n}`, order_type: "market", ...body });
    const answer = (await response.json()) as { signalId?: string; status?: string; error?: string };
    if (!answer.signalId) return { http: response.status, status: null, reason: answer.error ?? null, trade: null };
    const signal = await signalFinal(app, answer.signalId);
    const trade = await db().selectFrom("trades").selectAll().where("signal_id", "=", signal.id).executeTakeFirst();
    return {
      http: response.status,
      status: signal.status,
      reason: signal.status_reason,
      strategyId: signal.strategy_id,
      trade: trade ?? null,
    };
  };
  /** The webhook's HTTP status for a market buy of 1 XRP-PERP sent with `secret`. */
  const xrpBuyStatus = async (secret: string, id: string) =>
    (await sendSignal(app, secret, { action: "buy", symbol: "XRP-PERP", quantity: "1", order_type: "market", id }))
      .status;
  /** An alert the strategy's rules skip with `reason`, no trade written. */
  const expectSkipped = async (secret: string, body: Record<string, unknown>, reason: string) =>
    expect(await alert(secret, body)).toMatchObject({ status: "skipped", reason, trade: null });
  const openPosition = (symbol: string) =>
    db()
      .selectFrom("positions")
      .selectAll()
      .where("symbol", "=", symbol)
      .where("status", "=", "open")
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    globalSecret = await webhookSecret(app, cookies.admin);
    await sim().ensureAccount();
    await setPrice(db(), "BTC-PERP", "50000", "test");
    await setPrice(db(), "ETH-PERP", "3000", "test");
    await setPrice(db(), "SOL-PERP", "100", "test");
    await setPrice(db(), "XRP-PERP", "0.5", "test");
    alpha = await create({
      name: "Alpha",
      allowedSymbols: ["BTC-PERP"],
      amountType: "multiplier",
      amountValue: "2",
      leverage: 3,
      rules: { takeProfits: [{ portfolio: 1, priceDeviation: 0.05, enabled: true }], stopLossOffset: 0.02 },
    });
    beta = await create({
      name: "Beta",
      allowedSymbols: ["ETH-PERP", "XRP-PERP"],
      amountType: "usd",
      amountValue: "300",
      maxPositionSize: "0.15",
      maxOpenPositions: 1,
      rules: { breakEvenEnabled: false, trailingStopEnabled: false },
    });
    gamma = await create({ name: "Gamma" });
    runner = startRunner({ db: db(), exchange: sim(), workerId: "strat-w1", pollMs: 3 });
  });
  afterAll(async () => {
    await runner?.stop();
  });

  test("each strategy has its own secret, the webhook URL and a ready alert message", () => {
    for (const s of [alpha, beta, gamma]) {
      expect(s.secret).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(s.secret).not.toBe(globalSecret);
      expect(s.webhookUrl).toBe("http://localhost:5000/api/webhook/tradingview");
      expect(JSON.parse(s.alertMessage)).toMatchObject({
        secret: s.secret,
        symbol: "{{ticker}}",
        action: "{{strategy.order.action}}",
      });
    }
    expect(new Set([alpha.secret, beta.secret, gamma.secret]).size).toBe(3);
  });

  test("two strategies size, lever and protect their positions their own way", async () => {
    const a = await alert(alpha.secret!, { action: "buy", symbol: "BTC-PERP", quantity: "0.01" });
    expect(a).toMatchObject({ status: "executed", strategyId: alpha.id });
    expect(D(String(a.trade!.quantity)).toString()).toBe("0.02"); // 0.01 × 2
    expect(a.trade!.leverage).toBe(3);
    expect(a.trade!.strategy_id).toBe(alpha.id);
    const btc = await openPosition("BTC-PERP");
    expect(btc.strategy_id).toBe(alpha.id);
    // Overridden: take-profit and stop-loss; the rest from Trading Rules (defaults).
    expect(JSON.parse(btc.advanced_controls!)).toEqual({
      takeProfits: [{ portfolio: 1, priceDeviation: 0.05, enabled: true }],
      stopLossOffset: 0.02,
      breakEven: true,
      breakEvenOffset: { unit: "percent", value: 0.001 }, // Trading Rules' default (decision 046)
      trailingStop: { activation: 0.012, execute: 0.006 },
    });

    const b = await alert(beta.secret!, { action: "buy", symbol: "ETHUSDT.P", quantity: "5" });
    expect(b).toMatchObject({ status: "executed", strategyId: beta.id });
    expect(D(String(b.trade!.quantity)).toString()).toBe("0.1"); // 300 USD at 3000
    expect(b.trade!.leverage).toBe(1);
    const eth = await openPosition("ETH-PERP");
    expect(eth.strategy_id).toBe(beta.id);
    expect(JSON.parse(eth.advanced_controls!)).toEqual({
      takeProfits: [
        { portfolio: 0.2, priceDeviation: 0.005, enabled: true },
        { portfolio: 0.3, priceDeviation: 0.01, enabled: true },
        { portfolio: 0.5, priceDeviation: 0.015, enabled: true },
      ],
      stopLossOffset: 0.005,
      breakEven: false,
      trailingStop: null,
    });
    const onExchange = (await sim().getPositions()).find((p) => p.symbol === "BTC-PERP");
    expect(D(onExchange!.quantity).toString()).toBe("0.02");
  });

  test("max position size cuts an order to what fits; max open positions refuses a new position", async () => {
    const more = await alert(beta.secret!, { action: "buy", symbol: "ETH-PERP", quantity: "1" });
    expect(more.status).toBe("executed");
    expect(D(String(more.trade!.quantity)).toString()).toBe("0.05"); // 0.1 open, max 0.15
    expect(D(String((await openPosition("ETH-PERP")).remaining_quantity)).toString()).toBe("0.15");
    await expectSkipped(
      beta.secret!,
      { action: "buy", symbol: "ETH-PERP", quantity: "1" },
      "ETH-PERP position is at the strategy's max position size 0.15",
    );
    await expectSkipped(
      beta.secret!,
      { action: "buy", symbol: "XRP-PERP", quantity: "1" },
      "Strategy Beta already has 1 open position (max 1)",
    );
  });

  test("a strategy's secret cannot trade another strategy's symbols", async () => {
    const refused = await alert(alpha.secret!, { action: "buy", symbol: "ETH-PERP", quantity: "1" });
    expect(refused).toMatchObject({
      http: 403,
      status: "failed",
      reason: "ETH-PERP is not allowed for strategy Alpha",
      trade: null,
    });
    expect(D(String((await openPosition("ETH-PERP")).remaining_quantity)).toString()).toBe("0.15");
  });

  test("one owner per symbol: another strategy and the default one cannot add; the default may reduce", async () => {
    await expectSkipped(
      gamma.secret!,
      { action: "buy", symbol: "BTC-PERP", quantity: "0.01" },
      "BTC-PERP has an open position of strategy Alpha",
    );
    const against = await alert(gamma.secret!, { action: "sell", symbol: "BTC-PERP", quantity: "0.01" });
    expect(against).toMatchObject({ status: "skipped", reason: "BTC-PERP has an open position of strategy Alpha" });
    const adds = await alert(globalSecret, { action: "buy", symbol: "BTC-PERP", quantity: "0.01" });
    expect(adds).toMatchObject({
      status: "skipped",
      reason: "BTC-PERP has an open position of strategy Alpha",
      strategyId: null,
    });
    const reduces = await alert(globalSecret, { action: "sell", symbol: "BTC-PERP", quantity: "0.005" });
    expect(reduces).toMatchObject({ status: "executed", strategyId: null });
    const btc = await openPosition("BTC-PERP");
    expect(D(String(btc.remaining_quantity)).toString()).toBe("0.015");
    expect(btc.strategy_id).toBe(alpha.id);
  });

  test("the global secret is the default strategy: its positions carry no strategy and Trading Rules", async () => {
    const sol = await alert(globalSecret, { action: "buy", symbol: "SOL-PERP", quantity: "1" });
    expect(sol).toMatchObject({ status: "executed", strategyId: null });
    expect(D(String(sol.trade!.quantity)).toString()).toBe("1");
    const position = await openPosition("SOL-PERP");
    expect(position.strategy_id).toBeNull();
    expect(JSON.parse(position.advanced_controls!).stopLossOffset).toBe(0.005);
    // A named strategy cannot trade the default strategy's symbol either.
    expect(await alert(gamma.secret!, { action: "buy", symbol: "SOL-PERP", quantity: "1" })).toMatchObject({
      status: "skipped",
      reason: "SOL-PERP has an open position of the default strategy",
    });
  });

  test("Apply Rules to Existing Positions keeps each strategy's overrides", async () => {
    const applied = await app.fetch("/api/positions/apply-rules", { method: "POST", cookie: cookies.admin });
    expect(applied.status).toBe(200);
    expect(JSON.parse((await openPosition("ETH-PERP")).advanced_controls!)).toMatchObject({
      stopLossOffset: 0.005,
      breakEven: false,
      trailingStop: null,
    });
    expect(JSON.parse((await openPosition("BTC-PERP")).advanced_controls!)).toMatchObject({
      stopLossOffset: 0.02,
      takeProfits: [{ portfolio: 1, priceDeviation: 0.05, enabled: true }],
    });
    expect(JSON.parse((await openPosition("SOL-PERP")).advanced_controls!)).toMatchObject({
      stopLossOffset: 0.005,
      breakEven: true,
    });
  });

  test("a disabled strategy's alerts are stored as skipped with the reason, nothing is sent", async () => {
    const off = await app.fetch(`/api/strategies/${gamma.id}`, {
      method: "PUT",
      cookie: cookies.admin,
      json: { enabled: false },
    });
    expect(off.status).toBe(200);
    expect(((await off.json()) as View).enabled).toBe(false);
    const stored = await alert(gamma.secret!, { action: "buy", symbol: "XRP-PERP", quantity: "1" });
    expect(stored).toMatchObject({
      http: 200,
      status: "skipped",
      reason: "Strategy Gamma is disabled: signal stored, no order sent",
      trade: null,
    });
  });

  test("Trade History, Positions and the Activity Log filter by strategy", async () => {
    const trades = async (strategy: string) =>
      (
        (await (await app.fetch(`/api/trades?limit=100&strategy=${strategy}`, { cookie: cookies.viewer })).json()) as {
          symbol: string;
          side: string;
        }[]
      )
        .map((t) => `${t.side} ${t.symbol}`)
        .sort();
    // Alpha's own entry, and the default strategy's reduction of Alpha's position.
    expect(await trades(alpha.id)).toEqual(["buy BTC-PERP", "sell BTC-PERP"]);
    expect(await trades(beta.id)).toEqual(["buy ETH-PERP", "buy ETH-PERP"]);
    expect(await trades(gamma.id)).toEqual([]);
    expect(await trades("default")).toEqual(["buy SOL-PERP"]);

    const positions = async (strategy: string) =>
      (
        (await (await app.fetch(`/api/positions?strategy=${strategy}`, { cookie: cookies.viewer })).json()) as {
          symbol: string;
        }[]
      )
        .map((p) => p.symbol)
        .sort();
    expect(await positions(alpha.id)).toEqual(["BTC-PERP"]);
    expect(await positions(beta.id)).toEqual(["ETH-PERP"]);
    expect(await positions("default")).toEqual(["SOL-PERP"]);
    expect(await positions("")).toEqual(["BTC-PERP", "ETH-PERP", "SOL-PERP"]);

    const logs = (await (
      await app.fetch(`/api/logs?limit=200&strategy=${gamma.id}`, { cookie: cookies.admin })
    ).json()) as { message: string }[];
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.some((l) => l.message.includes("Strategy Gamma is disabled"))).toBe(true);
    expect(logs.some((l) => l.message.includes("has an open position of strategy Alpha"))).toBe(true); // Gamma's refusals
    expect(logs.some((l) => l.message.startsWith("Strategy Alpha created"))).toBe(false);
    expect(logs.some((l) => l.message.startsWith("Order filled"))).toBe(false);
    // The screens, server-rendered (as without JavaScript).
    const positionsPage = await (await app.fetch(`/positions?strategy=${beta.id}`, { cookie: cookies.viewer })).text();
    expect(positionsPage).toContain('data-symbol="ETH-PERP"');
    expect(positionsPage).not.toContain('data-symbol="BTC-PERP"');
    expect(positionsPage).toContain('data-testid="positions-strategy-filter"');
    const historyPage = await (await app.fetch(`/history?strategy=${beta.id}`, { cookie: cookies.viewer })).text();
    expect(historyPage).toContain("ETH-PERP");
    expect(historyPage).not.toContain("SOL-PERP");
    const logsPage = await (await app.fetch(`/logs?strategy=${gamma.id}`, { cookie: cookies.viewer })).text();
    expect(logsPage).toContain("Strategy Gamma is disabled");
    expect(logsPage).not.toContain("Order filled");
    const alphaLogs = (await (
      await app.fetch(`/api/logs?limit=200&strategy=${alpha.id}`, { cookie: cookies.admin })
    ).json()) as { message: string }[];
    expect(alphaLogs.some((l) => l.message.startsWith("Order filled") && l.message.includes("BTC-PERP"))).toBe(true);
    expect(alphaLogs.some((l) => l.message.includes("ETH-PERP") && l.message.startsWith("Order filled"))).toBe(false);
  });

  test("performance statistics per strategy beside the totals", async () => {
    const stats = (await (await app.fetch("/api/strategies/stats", { cookie: cookies.viewer })).json()) as {
      totals: { allTime: { totalTrades: number; totalPnl: string } };
      strategies: {
        id: string;
        name: string;
        stats: { allTime: { totalTrades: number; totalPnl: string; percentProfitable: string } };
      }[];
    };
    const row = (id: string) => stats.strategies.find((s) => s.id === id)!.stats.allTime;
    expect(stats.strategies.map((s) => s.name)).toEqual(["default (global secret)", "Alpha", "Beta", "Gamma"]);
    // The default strategy's sell closed part of Alpha's lot: the match is Alpha's.
    expect(row(alpha.id).totalTrades).toBe(1);
    expect(row(beta.id).totalTrades).toBe(0);
    expect(row("default").totalTrades).toBe(0);
    expect(stats.totals.allTime.totalTrades).toBe(1);
    expect(row(alpha.id).totalPnl).toBe(stats.totals.allTime.totalPnl);
    const closing = await db()
      .selectFrom("trades")
      .select("realized_pnl")
      .where("symbol", "=", "BTC-PERP")
      .where("side", "=", "sell")
      .executeTakeFirstOrThrow();
    expect(D(row(alpha.id).totalPnl).eq(D(String(closing.realized_pnl)).round(2))).toBe(true);
    expect((await app.fetch("/api/strategies/stats")).status).toBe(401);
  });

  test("viewers read strategies without secrets and cannot change them (403)", async () => {
    const list = (await (await app.fetch("/api/strategies", { cookie: cookies.viewer })).json()) as {
      strategies: View[];
    };
    expect(list.strategies.map((s) => s.name)).toEqual(["Alpha", "Beta", "Gamma"]);
    for (const s of list.strategies) {
      expect(s.secret).toBeNull();
      expect(s.alertMessage).not.toContain(alpha.secret!);
    }
    const before = await db().selectFrom("strategies").selectAll().orderBy("id").execute();
    expect(
      (await app.fetch("/api/strategies", { method: "POST", cookie: cookies.viewer, json: { name: "Nope" } })).status,
    ).toBe(403);
    expect(
      (
        await app.fetch(`/api/strategies/${alpha.id}`, {
          method: "PUT",
          cookie: cookies.viewer,
          json: { enabled: false },
        })
      ).status,
    ).toBe(403);
    expect((await app.fetch(`/api/strategies/${alpha.id}`, { method: "DELETE", cookie: cookies.viewer })).status).toBe(
      403,
    );
    expect(
      (await app.fetch(`/api/strategies/${alpha.id}/rotate`, { method: "POST", cookie: cookies.viewer })).status,
    ).toBe(403);
    expect(await db().selectFrom("strategies").selectAll().orderBy("id").execute()).toEqual(before);
    expect((await app.fetch("/api/strategies")).status).toBe(401);
  });

  test("the Strategies screen works without JavaScript: viewers read, admins create with form posts", async () => {
    const page = await app.fetch("/strategies", { cookie: cookies.viewer });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Alpha");
    expect(html).toContain("http://localhost:5000/api/webhook/tradingview");
    expect(html).not.toContain(alpha.secret!);
    expect(html).not.toContain("Create Strategy");

    await expectFormRefused(
      app,
      "/strategies",
      cookies.admin,
      { intent: "create", name: "Form One", amountType: "usd", amountValue: "0.5", leverage: "2" },
      "USD amount must be at least 1",
    );
    const created = await app.fetch("/strategies", {
      method: "POST",
      cookie: cookies.admin,
      form: {
        intent: "create",
        name: "Form One",
        enabled: "on",
        amountType: "usd",
        amountValue: "100",
        leverage: "2",
        stopLossOffset: "1.5",
        takeProfits: "50@1, 50@2",
        breakEven: "off",
        allowedSymbols: "SOL-PERP",
      },
    });
    expect(created.status).toBe(302);
    const row = await db()
      .selectFrom("strategies")
      .selectAll()
      .where("name", "=", "Form One")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.allowed_symbols)).toEqual(["SOL-PERP"]);
    expect(JSON.parse(row.rules!)).toEqual({
      stopLossOffset: 0.015,
      breakEvenEnabled: false,
      takeProfits: [
        { portfolio: 0.5, priceDeviation: 0.01, enabled: true },
        { portfolio: 0.5, priceDeviation: 0.02, enabled: true },
      ],
    });
    expect(row.leverage).toBe(2);
    const adminPage = await (await app.fetch("/strategies", { cookie: cookies.admin })).text();
    expect(adminPage).toContain("Form One");
    expect(adminPage).toContain(alpha.secret!);
    const off = await app.fetch("/strategies", {
      method: "POST",
      cookie: cookies.admin,
      form: { intent: "toggle", id: row.id },
    });
    expect(off.status).toBe(302);
    expect(
      Number(
        (await db().selectFrom("strategies").select("enabled").where("id", "=", row.id).executeTakeFirstOrThrow())
          .enabled,
      ),
    ).toBe(0);
    expect(
      (
        await app.fetch("/strategies", {
          method: "POST",
          cookie: cookies.admin,
          form: { intent: "delete", id: row.id },
        })
      ).status,
    ).toBe(302);
  });

  test("admin: validation, unique names, rotation, and no deleting a strategy with open positions", async () => {
    const bad = await app.fetch("/api/strategies", {
      method: "POST",
      cookie: cookies.admin,
      json: { name: "Delta", amountType: "usd", amountValue: "0.5" },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "USD amount must be at least 1", field: "amountValue" });
    const tp = await app.fetch("/api/strategies", {
      method: "POST",
      cookie: cookies.admin,
      json: { name: "Delta", rules: { takeProfits: [{ portfolio: 0.5, priceDeviation: 0.01, enabled: true }] } },
    });
    expect(await tp.json()).toMatchObject({
      error: "Invalid Portfolio Allocation: Enabled Take Profit levels must total 100%, currently 50%",
    });
    const twin = await app.fetch("/api/strategies", { method: "POST", cookie: cookies.admin, json: { name: "alpha" } });
    expect(twin.status).toBe(409);

    const rotated = (await (
      await app.fetch(`/api/strategies/${gamma.id}/rotate`, { method: "POST", cookie: cookies.admin })
    ).json()) as View;
    expect(rotated.secret).not.toBe(gamma.secret);
    expect(await xrpBuyStatus(gamma.secret!, "old-secret")).toBe(401);
    expect(await xrpBuyStatus(rotated.secret!, "new-secret")).toBe(200);

    const busy = await app.fetch(`/api/strategies/${beta.id}`, { method: "DELETE", cookie: cookies.admin });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ error: "Strategy Beta has 1 open position: close it first" });
    const gone = await app.fetch(`/api/strategies/${gamma.id}`, { method: "DELETE", cookie: cookies.admin });
    expect(gone.status).toBe(200);
    expect(await xrpBuyStatus(rotated.secret!, "deleted")).toBe(401);
  });
});
