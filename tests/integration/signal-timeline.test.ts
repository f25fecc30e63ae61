// The latency timeline per alert (issue 12), on both dialects: a webhook signal run by the
// worker on the simulator has every hop stamped, in order; TradingView's `timenow` is kept as
// the fire time; the 24 h p50 / p99 summary is computed from the stored hops; any signed-in
// role reads GET /api/signals/latency; the dashboard and Trade History details carry it.
import { beforeAll, beforeEach, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { setPrice } from "#exchange/simulator/price-feed.ts";
import { HOPS, type LatencySummary, formatMs, percentile } from "#app/core/timeline.ts";
import { getLatencySummary } from "#app/services/signals.server.ts";
import { getSignalStamps, stampSignal } from "#db/queries/signal-timeline.ts";
import { freshApp, registeredAccounts, sendSignal, sendSignalId, waitFor, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import { startRunner } from "#worker/runner.ts";

describe.each(testDialects())("signal timeline on %s", (dialect) => {
  const app = freshApp(dialect, {}, { file: true });
  const cookies = registeredAccounts(app, { admin: "tl_admin", viewer: ["tl_viewer", "viewer"] });
  let secret: string;
  const db = () => app.database.db;

  beforeAll(async () => {
    secret = await webhookSecret(app, cookies.admin);
    await new SimulatorAdapter(db()).ensureAccount();
  });
  beforeEach(async () => {
    for (const table of ["jobs", "trades", "positions", "sim_orders", "signals", "signal_timeline"] as const)
      await db().deleteFrom(table).execute();
    await db().deleteFrom("sim_positions").execute();
    await setPrice(db(), "ETH-PERP", "3000");
  });

  const complete = (signalId: string) =>
    waitFor(`every hop of ${signalId}`, async () => {
      const stamps = await getSignalStamps(db(), signalId);
      return stamps && HOPS.every((hop) => hop === "fired" || stamps[hop] !== null) ? stamps : null;
    });

  test("a webhook signal through the worker has every hop, in order, and timenow as its fire time", async () => {
    const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "tl-w1", pollMs: 5 });
    try {
      const fired = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000); // {{timenow}}: whole seconds, UTC
      const before = Date.now();
      const response = await sendSignal(app, secret, {
        action: "buy",
        symbol: "ETH-PERP",
        quantity: "0.1",
        order_type: "market",
        timenow: fired.toISOString().replace(".000", ""),
      });
      const after = Date.now();
      expect(response.status).toBe(200);
      const { signalId } = (await response.json()) as { signalId: string };
      // Live: the fill's own transaction (whose trade_update makes an open page re-fetch)
      // carries every worker hop, so the page never sees an executed trade with a partial timeline.
      await waitFor(
        "trade executed",
        async () =>
          (await db().selectFrom("trades").select("status").where("signal_id", "=", signalId).executeTakeFirst())
            ?.status === "executed",
      );
      const atFill = (await getSignalStamps(db(), signalId))!;
      expect(
        [atFill.received, atFill.committed, atFill.claimed, atFill.sent, atFill.acked, atFill.filled].every(
          (v) => v !== null,
        ),
      ).toBe(true);
      const stamps = await complete(signalId);

      expect(stamps.fired).toBe(fired.getTime());
      expect(stamps.received).toBeGreaterThanOrEqual(before);
      expect(stamps.committed).toBeLessThanOrEqual(after);
      // Monotonic: each hop at or after the one before it.
      const ours = HOPS.slice(1).map((hop) => stamps[hop]!);
      expect(ours).toEqual([...ours].sort((a, b) => a - b));
      expect(stamps.received!).toBeGreaterThanOrEqual(stamps.fired!);

      // The stamps match what they mark: the trade's fill and the job's claim.
      const trade = await db()
        .selectFrom("trades")
        .select(["executed_at", "status"])
        .where("signal_id", "=", signalId)
        .executeTakeFirstOrThrow();
      expect(trade.status).toBe("executed");
      expect(stamps.filled! - stamps.received!).toBeLessThan(10_000);

      // Shown: the dashboard's signals (API and first paint) and Trade History's trade details.
      const signals = (await (await app.fetch("/api/signals?limit=5", { cookie: cookies.viewer })).json()) as {
        id: string;
        timeline?: { monotonic: boolean; steps: { hop: string; at: string | null; deltaMs: number | null }[] } | null;
      }[];
      const listed = signals.find((s) => s.id === signalId)!;
      expect(listed.timeline?.monotonic).toBe(true);
      expect(listed.timeline?.steps.map((s) => s.hop)).toEqual([...HOPS]);
      expect(listed.timeline?.steps.every((s) => s.at !== null)).toBe(true);
      expect(listed.timeline!.steps[1]!.deltaMs).toBe(stamps.received! - stamps.fired!);

      const tradeId = (
        await db().selectFrom("trades").select("id").where("signal_id", "=", signalId).executeTakeFirstOrThrow()
      ).id;
      const details = (await (
        await app.fetch(`/api/trades/${tradeId}/details`, { cookie: cookies.viewer })
      ).json()) as { timeline?: { signalId: string; totalMs: number } | null };
      expect(details.timeline?.signalId).toBe(signalId);
      expect(details.timeline?.totalMs).toBe(stamps.filled! - stamps.received!);

      // The dashboard sends each row's latency line and a link, not the hops (decision 043);
      // /signals/{id} renders the timeline on the server (the no-JavaScript path).
      const page = await (await app.fetch("/dashboard", { cookie: cookies.viewer })).text();
      expect(page).toContain(`Latency: ${formatMs(stamps.filled! - stamps.received!)} to fill booked`);
      expect(page).toContain(`href="/signals/${signalId}"`);
      expect(page).not.toContain('data-testid="signal-timeline"');
      expect(page).not.toContain("Fill booked");
      const own = await app.fetch(`/signals/${signalId}`, { cookie: cookies.viewer });
      expect(own.status).toBe(200);
      const ownPage = await own.text();
      expect(ownPage).toContain('data-testid="signal-timeline"');
      expect(ownPage).toContain("Fill booked");
      expect((await app.fetch("/signals/no-such-signal", { cookie: cookies.viewer })).status).toBe(404);
    } finally {
      await runner.stop();
    }
  });

  test("without timenow the alert's timestamp is the fire time; without either it stays empty", async () => {
    const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "tl-w2", pollMs: 5 });
    try {
      const ts = Date.now() - 500;
      const a = (await (
        await sendSignal(app, secret, {
          action: "buy",
          symbol: "ETH-PERP",
          quantity: "0.1",
          order_type: "market",
          timestamp: ts,
        })
      ).json()) as { signalId: string };
      const b = (await (
        await sendSignal(app, secret, { action: "sell", symbol: "ETH-PERP", quantity: "0.1", order_type: "market" })
      ).json()) as { signalId: string };
      expect((await complete(a.signalId)).fired).toBe(ts);
      expect((await complete(b.signalId)).fired).toBeNull();
    } finally {
      await runner.stop();
    }
  });

  test("a resting limit order: claimed, sent and accepted are written without its fill; the fill adds the last hop", async () => {
    const runner = startRunner({ db: db(), exchange: new SimulatorAdapter(db()), workerId: "tl-w3", pollMs: 5 });
    try {
      const signalId = await sendSignalId(app, secret, {
        action: "buy",
        symbol: "ETH-PERP",
        quantity: "0.1",
        order_type: "limit",
        price: "2900",
      });
      const resting = await waitFor("claimed, sent and accepted", async () => {
        const stamps = await getSignalStamps(db(), signalId);
        return stamps?.acked != null ? stamps : null;
      });
      expect(resting.claimed).not.toBeNull();
      expect(resting.sent).not.toBeNull();
      expect(resting.filled).toBeNull();
    } finally {
      await runner.stop();
    }
  });

  test("a hop keeps its first time; a stamp for a signal without a row creates it", async () => {
    const signalId = await sendSignalId(app, secret, {
      action: "buy",
      symbol: "ETH-PERP",
      quantity: "0.1",
      order_type: "market",
    });
    await db().updateTable("jobs").set({ status: "cancelled" }).execute(); // no worker here
    stampSignal(db(), signalId, "claimed", 1_000);
    stampSignal(db(), signalId, "claimed", 2_000);
    stampSignal(db(), "00000000-0000-4000-8000-000000000000", "sent", 3_000);
    await waitFor("stamps written", async () => (await getSignalStamps(db(), signalId))?.claimed === 1_000);
    stampSignal(db(), signalId, "claimed", 5_000);
    await db()
      .transaction()
      .execute((trx) => stampSignal(trx, signalId, "filled", 6_000));
    await waitFor(
      "orphan stamp",
      async () => (await getSignalStamps(db(), "00000000-0000-4000-8000-000000000000"))?.sent === 3_000,
    );
    await new Promise((r) => setTimeout(r, 120));
    const stamps = (await getSignalStamps(db(), signalId))!;
    expect(stamps.claimed).toBe(1_000);
    expect(stamps.filled).toBe(6_000);
  });

  test("the 24 h summary: p50 / p99 per step from the stored hops; the endpoint answers a viewer", async () => {
    const now = Date.now();
    // 20 signals with known steps: received → committed takes i ms (1..20), committed → claimed 2i.
    const rows = Array.from({ length: 20 }, (_, k) => {
      const i = k + 1;
      const received = now - 60_000 + i * 100;
      return {
        signal_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        fired_at: received - 50,
        received_at: received,
        committed_at: received + i,
        claimed_at: received + 3 * i,
        sent_at: received + 3 * i + 1,
        acked_at: received + 3 * i + 2,
        filled_at: received + 3 * i + 4,
      };
    });
    // One outside the window, ignored.
    rows.push({
      signal_id: "00000000-0000-4000-8000-999999999999",
      fired_at: null as never,
      received_at: now - 25 * 3600_000,
      committed_at: now - 25 * 3600_000 + 999,
      claimed_at: null as never,
      sent_at: null as never,
      acked_at: null as never,
      filled_at: null as never,
    });
    await db().insertInto("signal_timeline").values(rows).execute();

    const summary = await getLatencySummary(db(), { now });
    expect(summary.signals).toBe(20);
    const step = (from: string) => summary.steps.find((s) => s.from === from)!;
    expect(step("fired")).toMatchObject({ count: 20, p50Ms: 50, p99Ms: 50 });
    expect(step("received")).toMatchObject({ to: "committed", count: 20, p50Ms: 10, p99Ms: 20, maxMs: 20 });
    expect(step("committed")).toMatchObject({ to: "claimed", p50Ms: 20, p99Ms: 40 });
    expect(step("acked")).toMatchObject({ to: "filled", p50Ms: 2, p99Ms: 2 });
    expect(summary.total).toMatchObject({
      count: 20,
      p50Ms: percentile(
        rows.slice(0, 20).map((_, k) => 3 * (k + 1) + 4),
        50,
      ),
      p99Ms: 64,
    });

    const response = await app.fetch("/api/signals/latency", { cookie: cookies.viewer });
    expect(response.status).toBe(200);
    const body = (await response.json()) as LatencySummary;
    expect(body.signals).toBe(20);
    expect(body.steps.find((s) => s.from === "received")).toMatchObject({ p50Ms: 10, p99Ms: 20 });
    expect((await app.fetch("/api/signals/latency")).status).toBe(401);

    // Webhook Config shows it, server-rendered (no JavaScript needed).
    const page = await (await app.fetch("/webhook", { cookie: cookies.admin })).text();
    expect(page).toContain('data-testid="latency-summary"');
    expect(page).toContain("20 alerts since");
    expect(page).toMatch(
      /data-from="received"[\s\S]*?data-testid="latency-p50"[^>]*>10 ms<[\s\S]*?data-testid="latency-p99"[^>]*>20 ms</,
    );
  });
});
