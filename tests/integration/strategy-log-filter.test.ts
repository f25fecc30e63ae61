// The Activity Log's strategy filter (issue 25), on both dialects: a strategy's heartbeat
// lines (its missed-alert alarm and its return) and its positions' rule events (take-profit,
// break-even, a trailing stop arming, Close) are found by the filter, through the real webhook,
// runner, simulator and rules monitor; another strategy's filter finds none of them.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { checkStrategyHeartbeats } from "#db/queries/heartbeats.ts";
import { freshApp, jobsIdle, registeredAccounts, rowInStatus, sendSignal, waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type Runner, startRunner } from "#worker/runner.ts";
import { processPriceTicks } from "#worker/monitor/price-loop.ts";

describe.each(testDialects())("activity log strategy filter on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, { admin: "logf_admin", viewer: ["logf_viewer", "viewer"] });
  let runner: Runner | null = null;
  const db = () => app.database.db;
  let kappa: { id: string; secret: string };
  let lambda: { id: string; secret: string };

  const create = async (name: string) => {
    const response = await app.fetch("/api/strategies", {
      method: "POST",
      cookie: cookies.admin,
      json: { name, allowedSymbols: [], amountType: "multiplier", amountValue: "1" },
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; secret: string };
  };
  const tick = async (symbol: string, price: string) => {
    await setPrice(db(), symbol, price, "test");
    await processPriceTicks(db(), [{ symbol, price }]);
    await jobsIdle(app);
  };
  const logs = async (strategy: string) =>
    (
      (await (await app.fetch(`/api/logs?limit=500&strategy=${strategy}`, { cookie: cookies.viewer })).json()) as {
        message: string;
      }[]
    ).map((l) => l.message);

  beforeAll(async () => {
    await new SimulatorAdapter(db()).ensureAccount();
    await setPrice(db(), "ETH-PERP", "3000", "test");
    kappa = await create("Kappa");
    lambda = await create("Lambda");
    runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "w1", pollMs: 3 });
  });
  afterAll(async () => {
    await runner?.stop();
  });

  test("its heartbeat lines (expected, missed, back) and its rule events are in its filter, not another's", async () => {
    // Heartbeats: expected every 60 s, missed (the alarm), then back.
    expect(
      (
        await app.fetch(`/api/heartbeats/${kappa.id}`, {
          method: "PUT",
          cookie: cookies.admin,
          json: { intervalSeconds: 60 },
        })
      ).status,
    ).toBe(200);
    expect(await checkStrategyHeartbeats(db(), Date.now() + 10 * 60_000)).toEqual([kappa.id]);
    expect((await sendSignal(app, kappa.secret, { action: "heartbeat", symbol: "ETH-PERP" })).status).toBe(200);

    // A position of Kappa's: TP1 (0.5 %), break-even, the trailing stop arming (1.2 %), then Close.
    expect(
      (
        await sendSignal(app, kappa.secret, {
          action: "buy",
          symbol: "ETH-PERP",
          quantity: "1",
          order_type: "market",
          id: "kappa-1",
        })
      ).status,
    ).toBe(200);
    const position = await waitFor(
      "Kappa's position",
      () =>
        db()
          .selectFrom("positions")
          .selectAll()
          .where("status", "=", "open")
          .where("symbol", "=", "ETH-PERP")
          .executeTakeFirst(),
      15_000,
      10,
    );
    expect(position.strategy_id).toBe(kappa.id);
    await tick("ETH-PERP", "3016"); // TP1 3001.5 × 1.005 = 3016.5075 not yet
    await tick("ETH-PERP", "3017"); // TP1
    await tick("ETH-PERP", "3040"); // TP2 (3031.515) and the trailing stop arms (3037.518)
    const closed = await app.fetch("/api/positions/ETH-PERP/close", { method: "POST", cookie: cookies.admin });
    expect(closed.status).toBe(200);
    await rowInStatus(app, "positions", position.id, "closed");

    const mine = await logs(kappa.id);
    const has = (start: string) => mine.some((m) => m.startsWith(start));
    expect(has("Heartbeat expected from strategy Kappa")).toBe(true);
    expect(has("Missed heartbeat: strategy Kappa")).toBe(true);
    expect(has("Heartbeat from strategy Kappa is back")).toBe(true);
    expect(has("Take profit 1 hit: closing 0.2 ETH-PERP")).toBe(true);
    expect(has("Break-even: stop for ETH-PERP moved to")).toBe(true);
    expect(has("Trailing stop armed for ETH-PERP")).toBe(true);
    expect(has("Close requested by logf_admin")).toBe(true);

    const theirs = await logs(lambda.id);
    for (const start of [
      "Missed heartbeat",
      "Heartbeat",
      "Take profit",
      "Break-even",
      "Trailing stop",
      "Close requested",
    ]) {
      expect(theirs.filter((m) => m.startsWith(start))).toEqual([]);
    }
    // The default strategy (the global secret) has none of Kappa's either.
    expect((await logs("default")).filter((m) => m.includes("Kappa") || m.startsWith("Take profit"))).toEqual([]);
    // The screen, server-rendered (as without JavaScript), filters the same way.
    const page = await (await app.fetch(`/logs?strategy=${kappa.id}`, { cookie: cookies.viewer })).text();
    expect(page).toContain("Missed heartbeat: strategy Kappa");
    expect(page).toContain("Take profit 1 hit");
  });

  test("the Webhook Status card says warning on a missed heartbeat (alerts still accepted), as /api/health does", async () => {
    expect(
      (
        await app.fetch("/api/heartbeats/default", {
          method: "PUT",
          cookie: cookies.admin,
          json: { intervalSeconds: 60 },
        })
      ).status,
    ).toBe(200);
    expect(await checkStrategyHeartbeats(db(), Date.now() + 10 * 60_000)).toContain("default");
    const health = JSON.stringify(await (await app.fetch("/api/health", { cookie: cookies.admin })).json());
    expect(health).toMatch(
      /"component":"webhook","status":"warning","message":"Missed heartbeat from [^"]*strategy default/,
    );
    // The page's status is at most a few seconds old (health.server.ts getSystemStatusForPage): the card follows within that.
    const card = await waitFor(
      "the card's next status",
      async () => {
        const page = await (await app.fetch("/dashboard", { cookie: cookies.admin })).text();
        const part = page.slice(
          page.indexOf('data-testid="card-webhook"'),
          page.indexOf('data-testid="card-exchange"'),
        );
        return part.includes('data-status="success"') ? null : part;
      },
      15_000,
      250,
    );
    expect(card).toContain('data-status="warning"');
    expect(card).toContain(">warning<");
    expect(card).not.toContain(">offline<");
    // Alerts are still accepted meanwhile.
    expect(
      (
        await sendSignal(app, lambda.secret, {
          action: "buy",
          symbol: "ETH-PERP",
          quantity: "0.01",
          order_type: "market",
          id: "lambda-1",
        })
      ).status,
    ).toBe(200);
  });
});
