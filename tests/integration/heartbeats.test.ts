// Missed-alert detection (issue 12), on both databases: a strategy (the default one, the global
// secret; and a strategy with its own secret) expected to send a heartbeat alert every N s
// turns missed when none comes within N + grace (an error logged and pushed live, the webhook
// health in warning), and back to OK (logged) when one arrives; heartbeats never make signals.
import { beforeAll, describe, expect, test } from "vitest";
import { checkWebhook } from "#app/services/health.server.ts";
import { listStrategyHeartbeats } from "#app/services/heartbeats.server.ts";
import { checkStrategyHeartbeats } from "#db/queries/heartbeats.ts";
import { freshApp, registerVia, sendSignal, webhookSecret } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("Heartbeat alarm on %s", (dialect) => {
  const app = freshApp(dialect);
  let admin: string;
  let viewer: string;
  let secret: string;
  const db = () => app.database.db;
  const heartbeat = async (key: string) => (await listStrategyHeartbeats(db())).find((h) => h.strategyKey === key);

  beforeAll(async () => {
    admin = (await registerVia(app, "hb_admin")).cookie;
    viewer = (await registerVia(app, "hb_viewer", "secret123", "viewer")).cookie;
    secret = await webhookSecret(app, admin);
  });

  test("the default strategy: waiting, missed (logged, pushed, health warning), back when one arrives", async () => {
    // Validation and roles.
    const bad = await app.fetch("/api/heartbeats/default", {
      method: "PUT",
      cookie: admin,
      json: { intervalSeconds: 10 },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      success: false,
      field: "intervalSeconds",
      error: "Interval must be at least 60 seconds",
    });
    expect(
      (await app.fetch("/api/heartbeats/default", { method: "PUT", cookie: viewer, json: { intervalSeconds: 60 } }))
        .status,
    ).toBe(403);
    expect(
      (await app.fetch("/api/heartbeats/nope", { method: "PUT", cookie: admin, json: { intervalSeconds: 60 } })).status,
    ).toBe(404);

    const set = await app.fetch("/api/heartbeats/default", {
      method: "PUT",
      cookie: admin,
      json: { intervalSeconds: 60, graceSeconds: 15 },
    });
    expect(set.status).toBe(200);
    const start = Date.now();
    expect(await heartbeat("default")).toMatchObject({
      name: "default",
      intervalSeconds: 60,
      graceSeconds: 15,
      state: "waiting",
      lastAt: null,
    });
    expect((await (await app.fetch("/api/heartbeats", { cookie: viewer })).json()).heartbeats).toHaveLength(1);

    // Within interval + grace: nothing.
    expect(await checkStrategyHeartbeats(db(), start + 70_000)).toEqual([]);
    expect((await checkWebhook({ db: db() })).status).toBe("online");
    // Past it: missed, once.
    expect(await checkStrategyHeartbeats(db(), start + 80_000)).toEqual(["default"]);
    expect(await checkStrategyHeartbeats(db(), start + 90_000)).toEqual([]);
    expect(await heartbeat("default")).toMatchObject({ state: "missed" });
    const error = await db()
      .selectFrom("activity_logs")
      .select(["level", "message"])
      .where("message", "like", "Missed heartbeat%")
      .execute();
    expect(error).toEqual([
      {
        level: "error",
        message:
          "Missed heartbeat: strategy default should send one every 60 s (grace 15 s); none received since it was set up. Its alerts may not be reaching the app",
      },
    ]);
    const pushed = await db().selectFrom("events").select("data").where("type", "=", "system_status").execute();
    expect(
      pushed.some(
        (e) => String(e.data).includes('"reason":"heartbeat"') && String(e.data).includes('"status":"warning"'),
      ),
    ).toBe(true);
    expect(await checkWebhook({ db: db() })).toEqual({
      component: "webhook",
      status: "warning",
      message: "Missed heartbeat from strategy default: its alerts may not be reaching the app",
    });

    // The heartbeat alert (text/plain, as TradingView sends it): OK again, no signal stored.
    const signalsBefore = (await db().selectFrom("signals").select("id").execute()).length;
    const beat = await sendSignal(app, secret, { action: "heartbeat" });
    expect(beat.status).toBe(200);
    expect(await beat.json()).toEqual({ success: true, heartbeat: true, expected: true });
    expect((await db().selectFrom("signals").select("id").execute()).length).toBe(signalsBefore);
    expect(await heartbeat("default")).toMatchObject({ state: "ok", missedSince: null });
    const back = await db()
      .selectFrom("activity_logs")
      .select(["level", "message"])
      .where("message", "like", "Heartbeat from strategy default is back%")
      .executeTakeFirst();
    expect(
      back?.level,
      JSON.stringify(
        await db().selectFrom("activity_logs").select(["level", "message"]).orderBy("id", "desc").limit(4).execute(),
      ),
    ).toBe("success");
    expect((await checkWebhook({ db: db() })).status).toBe("online");
    // A wrong secret is still a 401.
    expect((await sendSignal(app, "wrong-secret-wrong-secret", { action: "heartbeat" })).status).toBe(401);
  });

  test("a strategy's own secret beats for that strategy only; stopping the expectation clears it", async () => {
    const created = await app.fetch("/api/strategies", { method: "POST", cookie: admin, json: { name: "Trend" } });
    expect(created.status).toBe(201);
    const strategy = (await created.json()) as { id: string; secret: string };
    expect(
      (
        await app.fetch(`/api/heartbeats/${strategy.id}`, {
          method: "PUT",
          cookie: admin,
          json: { intervalSeconds: 300 },
        })
      ).status,
    ).toBe(200);
    const trend = await heartbeat(strategy.id);
    expect(trend).toMatchObject({ name: "Trend", intervalSeconds: 300, graceSeconds: 60, state: "waiting" }); // grace: a fifth
    const beat = await sendSignal(app, strategy.secret, { action: "heartbeat" });
    expect(await beat.json()).toEqual({ success: true, heartbeat: true, expected: true });
    expect(await heartbeat(strategy.id)).toMatchObject({ state: "ok" });
    expect(await checkStrategyHeartbeats(db(), Date.now() + 300_000)).not.toContain(strategy.id); // 300 + 60 not yet passed
    expect(await checkStrategyHeartbeats(db(), Date.now() + 361_000)).toContain(strategy.id);
    expect((await checkWebhook({ db: db() })).message).toMatch(/strategy Trend/);
    expect((await app.fetch(`/api/heartbeats/${strategy.id}`, { method: "DELETE", cookie: admin })).status).toBe(200);
    expect(await heartbeat(strategy.id)).toBeUndefined();
  });
});
