// "Send test alert" (issue 12), on both databases, with live Coinbase (the fake) as the active
// exchange: the builder's message, filled with sample values and marked as a test, goes through
// the real webhook route, the queue and the worker, is sized like any signal (one ETH contract
// of Coinbase's), and is traded on the simulator's test account: nothing reaches Coinbase, no
// position, no trade, the test account is flat again, and the signal says so with every hop of
// its timeline stamped in order.
import { beforeAll, describe, expect, test } from "vitest";
import { DEFAULT_ALERT_OPTIONS } from "#app/core/alerts/template.ts";
import { D } from "#app/core/decimal.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { getExchange } from "#exchange/factory.ts";
import { sendTestAlert } from "#app/services/test-alert.server.ts";
import { makeCdpKey } from "#tests/msw/coinbase.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { registerVia, waitFor } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { TIMELINE_HOPS } from "#tests/setup/fixtures.ts";
import { liveCoinbaseSuite } from "#tests/setup/live-coinbase.ts";
import { startRunner } from "#worker/runner.ts";
import { TEST_ALERTS_PROFILE_ID } from "#worker/tasks/test-alert.ts";

const key = makeCdpKey("ec");
const msw = useCoinbaseFake({ cdpKeys: [key] });

describe.each(testDialects())("Send test alert, %s", (dialect) => {
  const live = liveCoinbaseSuite(dialect, key, "ta", { worker: false });
  const { app, db } = live;
  let viewer: string;
  /** The in-process app stands for 127.0.0.1:PORT: the same route TradingView posts to. */
  const viaApp = (url: string, init: { method: string; headers: Record<string, string>; body: string }) =>
    app.fetch(new URL(url).pathname, init);

  beforeAll(async () => {
    viewer = (await registerVia(app, "ta_viewer", "secret123", "viewer")).cookie;
    await waitFor("the web side live too", async () => (await getExchange(db()).current()).name === "coinbase", 5000);
    await setPrice(db(), "ETH-PERP", "3400", "test");
    live.runner = startRunner({ db: db(), exchange: live.exchange, workerId: "ta-w1", pollMs: 5 });
  });

  test("through the real endpoint and the worker, traded on the simulator's test account, nothing on Coinbase", async () => {
    msw.reset();
    const sent = await sendTestAlert(db(), { ...DEFAULT_ALERT_OPTIONS, symbol: "ETH-PERP" }, live.secret, {
      port: 0,
      fetchImpl: viaApp,
    });
    expect(sent.status, sent.answer).toBe(200);
    expect(sent.signalId).toBeTruthy();
    expect(sent.message).not.toContain(live.secret);
    expect(JSON.parse(sent.message)).toMatchObject({
      action: "buy",
      symbol: "ETH-PERP",
      test: true,
      order_type: "market",
    });

    await waitFor("settled", async () =>
      ["executed", "failed", "skipped"].includes(
        (await db().selectFrom("signals").select("status").where("id", "=", sent.signalId!).executeTakeFirst())
          ?.status ?? "",
      ),
    );
    const signal = await db()
      .selectFrom("signals")
      .selectAll()
      .where("id", "=", sent.signalId!)
      .executeTakeFirstOrThrow();
    expect(signal.status, signal.status_reason ?? "").toBe("executed");
    // One Coinbase ETH contract (0.1 ETH): sized in the active exchange's units, as any signal.
    expect(signal.status_reason).toMatch(
      /^Test alert: BUY 0\.1 ETH-PERP filled at 3,?40\d\.\d+ on the simulator's test account \(closed again at once\)\. No position, no P&L$/,
    );
    expect(msw.fake.requestsTo("/orders", "POST")).toEqual([]);
    expect(await db().selectFrom("trades").select("id").execute()).toEqual([]);
    expect(await db().selectFrom("positions").select("id").execute()).toEqual([]);
    const account = await db()
      .selectFrom("profiles")
      .select(["name", "source"])
      .where("id", "=", TEST_ALERTS_PROFILE_ID)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ name: "Test alerts (paper)", source: "simulator" });
    const held = await db()
      .selectFrom("sim_positions")
      .select(["quantity"])
      .where("profile_id", "=", TEST_ALERTS_PROFILE_ID)
      .execute();
    expect(held.every((p) => D(String(p.quantity)).eq(0))).toBe(true);

    // Every hop stamped, in order; any role reads it.
    const answer = await app.fetch(`/api/signals/${sent.signalId}`, { cookie: viewer });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as {
      signal: { test: boolean; status: string };
      timeline: { monotonic: boolean; steps: { hop: string; at: number | null }[] };
    };
    expect(body.signal).toMatchObject({ test: true, status: "executed" });
    await waitFor("every hop written", async () => {
      const t = ((await (await app.fetch(`/api/signals/${sent.signalId}`, { cookie: viewer })).json()) as typeof body)
        .timeline;
      return t.steps.filter((s) => s.hop !== "fired").every((s) => s.at !== null) ? t : null;
    });
    const timeline = (
      (await (await app.fetch(`/api/signals/${sent.signalId}`, { cookie: viewer })).json()) as typeof body
    ).timeline;
    expect(timeline.steps.map((s) => s.hop)).toEqual(TIMELINE_HOPS);
    expect(timeline.monotonic).toBe(true);
  });

  test("an endpoint that cannot be reached is said so, and nothing is stored", async () => {
    const before = (await db().selectFrom("signals").select("id").execute()).length;
    const refused = async () => {
      throw new Error("connect ECONNREFUSED 127.0.0.1:1");
    };
    const sent = await sendTestAlert(db(), DEFAULT_ALERT_OPTIONS, live.secret, { port: 1, fetchImpl: refused });
    expect(sent).toMatchObject({
      status: 0,
      signalId: null,
      answer: "The webhook endpoint could not be reached: connect ECONNREFUSED 127.0.0.1:1",
    });
    expect(sent.message).not.toContain(live.secret);
    expect((await db().selectFrom("signals").select("id").execute()).length).toBe(before);
  });

  test("a test alert with a wrong secret is refused like any alert, and nothing is stored", async () => {
    const before = (await db().selectFrom("signals").select("id").execute()).length;
    const sent = await sendTestAlert(db(), DEFAULT_ALERT_OPTIONS, "not-the-secret-at-all-123", {
      port: 0,
      fetchImpl: viaApp,
    });
    expect(sent.status).toBe(401);
    expect(sent.signalId).toBeNull();
    expect((await db().selectFrom("signals").select("id").execute()).length).toBe(before);
  });
});
