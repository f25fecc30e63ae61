// Logging out closes that session's live feed at once (close code 4401); another session's
// socket stays open. Real server: Bun.serve over the same Hono app the web process runs.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SESSION_ENDED_CODE } from "#app/live/close-codes.ts";
import { type LiveServer, startLiveServer } from "#tests/setup/live-server.ts";

describe("live feed and logout", () => {
  let live: LiveServer;
  let base: string;
  beforeAll(async () => {
    live = await startLiveServer("sqlite");
    base = live.base;
  });
  afterAll(async () => {
    await live?.stop();
  });

  const register = (username: string) => live.register(username);

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
