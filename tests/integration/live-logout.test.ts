// Logging out closes that session's live feed at once (close code 4401); another session's
// socket stays open. Real server: Bun.serve over the same Hono app the web process runs.
import { websocket } from "hono/bun";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LiveHub } from "#app/live/hub.server.ts";
import { SESSION_ENDED_CODE } from "#app/live/close-codes.ts";
import { loadConfig } from "#app/core/env.ts";
import { createApp } from "#server.ts";
import { loadBuild } from "#tests/setup/app.ts";
import { type TestDatabase, createTestDatabase } from "#tests/setup/db.ts";

describe("live feed and logout", () => {
  let database: TestDatabase;
  let server: ReturnType<typeof Bun.serve>;
  let hub: LiveHub;
  let base: string;
  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    const config = loadConfig({ NODE_ENV: "production", APP_SECRET: "live-logout-secret-0123456789abcdef0123", DATA_DIR: "/tmp/perpdesk-test-unused" });
    hub = new LiveHub({ db: database.db });
    const app = createApp({ config, database, build: await loadBuild(), hub, mode: "production" });
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch, websocket });
    hub.attach(server);
    await hub.start();
    base = `127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    server?.stop(true);
    await hub?.stop();
    await database?.cleanup();
  });

  async function register(username: string) {
    const response = await fetch(`http://${base}/api/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username, password: "secret123" }),
    });
    expect(response.status).toBe(201);
    const cookie = response.headers.getSetCookie().map((h) => h.split(";")[0]!).find((p) => p.startsWith("tv_session="))!;
    return cookie;
  }

  function open(cookie: string) {
    const ws = new WebSocket(`ws://${base}/ws`, { headers: { Cookie: cookie } } as never);
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    const hello = new Promise<void>((resolve, reject) => {
      ws.addEventListener("message", () => resolve(), { once: true });
      ws.addEventListener("error", () => reject(new Error("socket error")));
    });
    return { ws, closed, hello };
  }

  test("logout closes the session's socket with 4401; the other session's socket stays open", async () => {
    const admin = await register("admin");
    const user = await register("trader");
    const a = open(admin);
    const b = open(user);
    await Promise.all([a.hello, b.hello]);

    const logout = await fetch(`http://${base}/api/logout`, { method: "POST", headers: { Cookie: admin } });
    expect(logout.status).toBe(200);
    const code = await Promise.race([a.closed, new Promise<number>((r) => setTimeout(() => r(-1), 2000))]);
    expect(code).toBe(SESSION_ENDED_CODE);
    expect(b.ws.readyState).toBe(WebSocket.OPEN);

    // The ended session cannot open a new one.
    const again = open(admin);
    const reopened = await Promise.race([again.closed, again.hello.then(() => "open").catch(() => "error")]);
    expect(reopened).not.toBe("open");
    b.ws.close();
  });
});
