// SSRF through notification channels (issue 23, item 6; docs/security.md, "Outgoing
// notifications"), on both databases, against real local endpoints: an "internal" HTTP service
// that answers 500 with a secret in its body, and a TCP service that greets like MariaDB.
// - loopback, private, link-local and metadata destinations are refused when a channel is
//   saved, with a clear message, unless the admin allowed private destinations (audited);
// - with it allowed, failures are logged from status codes and error classes only: neither the
//   remote body nor the banner reaches the delivery log or the activity log a viewer reads;
// - the webhook URL's secret path and query appear nowhere (only scheme://host);
// - turning the setting off again stops the next delivery before it connects (checked at
//   delivery time too).
import { type Server, createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { SimulatorAdapter } from "#exchange/simulator/adapter.ts";
import { enqueueNotification } from "#db/queries/notifications.ts";
import {
  type TestApp,
  createTestApp,
  latestAudit,
  notificationRunner,
  registerVia,
  waitFor,
} from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";
import type { Runner } from "#worker/runner.ts";

const INTERNAL_SECRET = "INTERNAL-ONLY: db_password=hunter2-internal";
const BANNER = "5.5.5-10.11.6-MariaDB-banner-secret";
const PATH_SECRET = "T0001/B0001/pathsecretXYZ123";
const QUERY_SECRET = "querysecretABC987";

describe.each(testDialects())("notification destinations on %s", (dialect) => {
  let app: TestApp;
  let admin: string;
  let viewer: string;
  let internal: ReturnType<typeof Bun.serve>;
  let internalCalls = 0;
  let banner: Server;
  let bannerPort: number;
  let runner: Runner | null = null;
  const db = () => app.database.db;
  const api = (json: Record<string, unknown>, cookie = admin) =>
    app.fetch("/api/notifications", { method: "POST", cookie, json });
  const general = (allowPrivateDestinations: boolean) =>
    api({ intent: "general", rateLimitPerMinute: 20, dailySummaryTime: "20:00", allowPrivateDestinations });
  const hookUrl = () => `http://127.0.0.1:${internal.port}/internal/${PATH_SECRET}?token=${QUERY_SECRET}`;
  const email = (host: string, port: number) => ({
    intent: "email",
    enabled: true,
    host,
    port,
    secure: false,
    from: "perpdesk@example.com",
    to: "owner@example.com",
    events: ["emergency_stop"],
  });

  beforeAll(async () => {
    internal = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => {
        internalCalls++;
        return new Response(`${INTERNAL_SECRET} at ${hookUrl()}`, { status: 500 });
      },
    });
    banner = createServer((socket) => {
      socket.on("error", () => undefined);
      socket.write(`J\u0000\u0000\u0000\n${BANNER}\u0000\r\n`);
      setTimeout(() => socket.destroy(), 200);
    });
    await new Promise<void>((resolve) => banner.listen(0, "127.0.0.1", resolve));
    bannerPort = (banner.address() as { port: number }).port;
    app = await createTestApp(dialect, { APP_SECRET: process.env.APP_SECRET! }, { file: true });
    admin = (await registerVia(app, "dest_admin")).cookie;
    viewer = (await registerVia(app, "dest_viewer", "secret123", "viewer")).cookie;
    await new SimulatorAdapter(db()).ensureAccount();
  });
  afterEach(async () => {
    await runner?.stop();
    runner = null;
  });
  afterAll(async () => {
    internal?.stop(true);
    banner?.close();
    await app?.cleanup();
  });

  test("private, loopback, link-local and metadata destinations are refused on save unless the admin allows them (audited)", async () => {
    const refusedUrls = [
      hookUrl(),
      "http://localhost:8080/x",
      "http://[::1]:8080/x",
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.5/hook",
      "http://172.16.3.4/hook",
      "http://192.168.1.20/hook",
      "http://0.0.0.0:5000/hook",
      "http://[fd00::1]/hook",
      "http://[fe80::1]/hook",
      "http://[::ffff:127.0.0.1]/hook",
    ];
    for (const url of refusedUrls) {
      const response = await api({ intent: "webhook", enabled: true, url, events: ["emergency_stop"] });
      expect(response.status, url).toBe(400);
      const body = (await response.json()) as { error: string; field: string };
      expect(body.field).toBe("url");
      expect(body.error).toMatch(
        /^The webhook URL points to a loopback, private, link-local or metadata address; an admin can allow private destinations/,
      );
    }
    const smtp = await api(email("127.0.0.1", 3306));
    expect(smtp.status).toBe(400);
    expect(((await smtp.json()) as { error: string }).error).toMatch(/^The SMTP host points to a loopback, private/);
    expect(await db().selectFrom("notification_channels").selectAll().execute()).toEqual([]);
    expect(internalCalls).toBe(0);
    // A public address is accepted (an IP literal: no DNS needed here).
    expect(
      (await api({ intent: "webhook", enabled: false, url: "https://93.184.215.14/hook", events: [] })).status,
    ).toBe(200);

    // Only an admin may allow them, and the change is in the audit trail.
    expect(
      (
        await general(true).then(() =>
          app.fetch("/api/notifications", {
            method: "POST",
            cookie: viewer,
            json: {
              intent: "general",
              rateLimitPerMinute: 20,
              dailySummaryTime: "20:00",
              allowPrivateDestinations: false,
            },
          }),
        )
      ).status,
    ).toBe(403);
    const audit = await latestAudit(app, "target", "notifications:general");
    expect(JSON.stringify(audit)).toContain("allowPrivateDestinations");
    expect((await api({ intent: "webhook", enabled: true, url: hookUrl(), events: ["emergency_stop"] })).status).toBe(
      200,
    );
    expect((await api(email("127.0.0.1", bannerPort))).status).toBe(200);
    // The screen shows the setting.
    expect(await (await app.fetch("/notifications", { cookie: admin })).text()).toContain(
      "Allow private notification destinations",
    );
  });

  test("allowed private endpoints: no remote body, banner, URL path or query in the delivery log or the logs every role reads; turned off again, the next delivery is stopped before it connects", async () => {
    await general(true);
    await api({ intent: "webhook", enabled: true, url: hookUrl(), events: ["emergency_stop"] });
    await api(email("127.0.0.1", bannerPort));
    await enqueueNotification(db(), {
      kind: "emergency_stop",
      title: "Emergency stop on",
      body: "",
      channels: ["webhook", "email"],
    });
    runner = notificationRunner(app, "dest-w1");
    const retryLines = await waitFor(
      "both channels' retry lines",
      async () => {
        const rows = await db()
          .selectFrom("activity_logs")
          .select("message")
          .where("message", "like", "Job send-notification%will retry%")
          .execute();
        return rows.length >= 2 ? rows : null;
      },
      20_000,
    );
    await runner.stop();
    runner = null;
    const deliveries = await db()
      .selectFrom("notification_deliveries")
      .select(["channel", "last_error"])
      .orderBy("channel")
      .execute();
    expect(deliveries.map((d) => [d.channel, d.last_error])).toEqual([
      ["email", "SMTP server: not an SMTP server [EPROTOCOL]"],
      ["webhook", "Webhook answered HTTP 500"],
    ]);
    expect(internalCalls).toBeGreaterThanOrEqual(1);
    const seenByViewer = [
      await (await app.fetch("/api/logs?limit=100", { cookie: viewer })).text(),
      await (await app.fetch("/logs", { cookie: viewer })).text(),
      await (await app.fetch("/dashboard", { cookie: viewer })).text(),
    ];
    const everything = [
      ...seenByViewer,
      ...retryLines.map((r) => r.message),
      JSON.stringify(await db().selectFrom("activity_logs").selectAll().execute()),
      JSON.stringify(await db().selectFrom("notification_deliveries").selectAll().execute()),
      JSON.stringify(await db().selectFrom("jobs").selectAll().execute()),
      JSON.stringify(await db().selectFrom("events").selectAll().execute()),
      await (await app.fetch("/api/notifications", { cookie: admin })).text(),
    ].join("\n");
    // ("MariaDB" alone would match the dashboard naming the database on MariaDB.)
    for (const leak of [
      "db_password",
      "hunter2-internal",
      "banner-secret",
      BANNER,
      PATH_SECRET,
      "pathsecretXYZ123",
      QUERY_SECRET,
      "/internal/",
    ]) {
      expect(everything.includes(leak), `leaked: ${leak}`).toBe(false);
    }
    expect(seenByViewer[0]).toContain("Webhook answered HTTP 500");

    // The admin turns private destinations off: the saved channels stay, but the next attempt is refused before connecting.
    await general(false);
    const callsBefore = internalCalls;
    await db()
      .updateTable("jobs")
      .set({ run_at: Date.now() })
      .where("task", "=", "send-notification")
      .where("status", "=", "retry")
      .execute();
    runner = notificationRunner(app, "dest-w2");
    const failed = await waitFor(
      "both deliveries refused",
      async () => {
        const rows = await db()
          .selectFrom("notification_deliveries")
          .select(["channel", "status", "last_error"])
          .where("status", "=", "failed")
          .orderBy("channel")
          .execute();
        return rows.length === 2 ? rows : null;
      },
      20_000,
    );
    expect(failed.map((d) => d.last_error)).toEqual([
      expect.stringMatching(/^SMTP refused: its host points to a loopback, private/),
      expect.stringMatching(/^Webhook refused: its host points to a loopback, private/),
    ]);
    expect(internalCalls).toBe(callsBefore);
  }, 60_000);
});
