// Issue 12 on the Strategies screen, over a real socket (the app posts test alerts to itself)
// and with plain form posts (no JavaScript), on both databases: a strategy's heartbeat alarm
// is set and shown; its "Send test alert" goes out with the strategy's own secret through the
// public endpoint and the worker, and the page shows the outcome.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type LiveServer, startLiveServer } from "#tests/setup/live-server.ts";
import { type Runner, startRunner } from "#worker/runner.ts";

describe.each(testDialects())("Strategies screen: heartbeat and test alert, %s", (dialect) => {
  let live: LiveServer;
  let runner: Runner | null = null;
  let admin: string;
  let origin: string;
  const db = () => live.database.db;
  const post = (path: string, form: Record<string, string>) =>
    fetch(`${origin}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: admin, origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form),
    });

  beforeAll(async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    live = await startLiveServer(dialect, { PORT: String(port) });
    origin = `http://${live.base}`;
    admin = await live.register("se_admin", "admin");
    const simulator = new SimulatorAdapter(db());
    await simulator.ensureAccount();
    await setPrice(db(), "ETH-PERP", "3400", "test");
    runner = startRunner({ db: db(), exchange: simulator, workerId: "se-w1", pollMs: 5 });
  });
  afterAll(async () => {
    await runner?.stop();
    await live?.stop();
  });

  test("a strategy's heartbeat alarm and its test alert, without JavaScript", async () => {
    const created = await fetch(`${origin}/api/strategies`, {
      method: "POST",
      headers: { cookie: admin, origin, "content-type": "application/json" },
      body: JSON.stringify({ name: "Scalper" }),
    });
    expect(created.status).toBe(201);
    const strategy = (await created.json()) as { id: string };

    const set = await post("/strategies", { intent: "heartbeat", id: strategy.id, intervalSeconds: "120" });
    expect(set.status).toBe(302);
    expect(
      await db()
        .selectFrom("strategy_heartbeats")
        .select(["interval_seconds", "state"])
        .where("strategy_key", "=", strategy.id)
        .executeTakeFirst(),
    ).toEqual({ interval_seconds: 120, state: "waiting" });
    const bad = await post("/strategies", { intent: "heartbeat", id: strategy.id, intervalSeconds: "5" });
    expect(bad.status).toBe(302); // refused with a toast, nothing changed
    expect(
      (
        await db()
          .selectFrom("strategy_heartbeats")
          .select("interval_seconds")
          .where("strategy_key", "=", strategy.id)
          .executeTakeFirst()
      )?.interval_seconds,
    ).toBe(120);

    const sent = await post("/strategies", {
      intent: "test-alert",
      id: strategy.id,
      prefix: "s0",
      builder: "?s0=1&s0_mode=entry&s0_symbol=ETH-PERP&s0_timenow=on",
    });
    expect(sent.status).toBe(302);
    const location = new URL(sent.headers.get("location")!, origin);
    expect(location.pathname).toBe("/strategies");
    expect(location.searchParams.get("testStrategy")).toBe(strategy.id);
    expect(location.searchParams.get("testStatus")).toBe("200");
    const signalId = location.searchParams.get("testSignal")!;
    const signal = await waitFor("executed", async () => {
      const row = await db()
        .selectFrom("signals")
        .select(["status", "status_reason", "strategy_id"])
        .where("id", "=", signalId)
        .executeTakeFirst();
      return row?.status === "executed" ? row : null;
    });
    expect(signal.strategy_id).toBe(strategy.id); // the strategy's own secret
    expect(signal.status_reason).toMatch(
      /^Test alert: BUY 0\.01 ETH-PERP filled at 3,?40\d\.\d+ on the simulator's test account/,
    );

    const page = await fetch(location, { headers: { cookie: admin } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-testid="test-alert-progress"');
    expect(html).toContain("Test alert: BUY 0.01 ETH-PERP filled at");
    expect(html).toContain('data-testid="strategy-heartbeat-state"');
    expect(html).toContain("WAITING");
    expect(await db().selectFrom("positions").select("id").execute()).toEqual([]);

    // A strategy limited to BTC-PERP, its builder on {{ticker}}: the test trades BTC-PERP, not the default product.
    await setPrice(db(), "BTC-PERP", "95000", "test");
    const btcOnly = (await (
      await fetch(`${origin}/api/strategies`, {
        method: "POST",
        headers: { cookie: admin, origin, "content-type": "application/json" },
        body: JSON.stringify({ name: "BtcOnly", allowedSymbols: ["BTC-PERP"] }),
      })
    ).json()) as { id: string };
    const sentBtc = await post("/strategies", {
      intent: "test-alert",
      id: btcOnly.id,
      prefix: "s1",
      builder: "?s1=1&s1_mode=entry",
    });
    const at = new URL(sentBtc.headers.get("location")!, origin);
    expect(at.searchParams.get("testStatus")).toBe("200");
    const btcSignal = await waitFor("executed", async () => {
      const row = await db()
        .selectFrom("signals")
        .select(["status", "symbol", "status_reason"])
        .where("id", "=", at.searchParams.get("testSignal")!)
        .executeTakeFirst();
      return row?.status === "executed" ? row : null;
    });
    expect(btcSignal.symbol).toBe("BTC-PERP");
  });
});
