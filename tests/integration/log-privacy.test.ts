// Activity-log privacy (issue 10): IP addresses and other users' sign-in entries are
// admin-only, in /api/logs, the Activity Logs page and the live feed; disabling an account
// closes its live socket at once. Real server (Bun.serve over the app) for the sockets.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SESSION_ENDED_CODE } from "#app/core/live-close-codes.ts";
import { testDialects } from "#tests/setup/db.ts";
import { type LiveServer, startLiveServer } from "#tests/setup/live-server.ts";

describe.each(testDialects())("activity-log privacy on %s", (dialect) => {
  let live: LiveServer;
  let base: string;
  const cookies: Record<string, string> = {};
  beforeAll(async () => {
    live = await startLiveServer(dialect);
    base = live.base;
    for (const [name, role] of [
      ["boss", "admin"],
      ["tina", "trader"],
      ["vic", "viewer"],
    ] as const)
      cookies[name] = await live.register(name, role);
    // Sign-in entries of each user, and a failed attempt on the admin's name.
    for (const [username, password] of [
      ["boss", "secret123"],
      ["tina", "secret123"],
      ["boss", "wrong-one"],
    ]) {
      await fetch(`http://${base}/api/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username, password }),
      });
    }
  });
  afterAll(async () => {
    await live?.stop();
  });

  const logsAs = async (name: string) =>
    (await (await fetch(`http://${base}/api/logs?limit=100`, { headers: { Cookie: cookies[name]! } })).json()) as {
      type: string;
      message: string;
      data: Record<string, unknown>;
    }[];

  test("the admin reads every sign-in entry with its address", async () => {
    const logs = await logsAs("boss");
    expect(logs.some((l) => l.message === "tina logged in" && l.data.ip === "127.0.0.1")).toBe(true);
    expect(logs.some((l) => l.message === "Failed login for boss")).toBe(true);
  });

  test("a trader and a viewer read their own sign-in entries, no one else's, and no address anywhere", async () => {
    for (const name of ["tina", "vic"]) {
      const logs = await logsAs(name);
      expect(JSON.stringify(logs)).not.toContain("127.0.0.1");
      const auth = logs.filter((l) => l.type === "auth");
      expect(
        auth.every((l) => String(l.data.username).toLowerCase() === name),
        JSON.stringify(auth),
      ).toBe(true);
      expect(logs.some((l) => l.message.includes("boss"))).toBe(false);
    }
    expect((await logsAs("tina")).some((l) => l.message === "tina logged in")).toBe(true);
    const page = await (await fetch(`http://${base}/logs`, { headers: { Cookie: cookies.vic! } })).text();
    expect(page).not.toContain("127.0.0.1");
    expect(page).not.toContain("Failed login for boss");
  });

  function open(cookie: string) {
    const ws = new WebSocket(`ws://${base}/ws`, { headers: { Cookie: cookie } } as never);
    const messages: { type: string; data: Record<string, unknown> }[] = [];
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    const hello = new Promise<void>((resolve) => ws.addEventListener("message", () => resolve(), { once: true }));
    ws.addEventListener("message", (e) => messages.push(JSON.parse(String(e.data))));
    return { ws, messages, closed, hello };
  }

  test("live: the admin's socket gets sign-in entries whole; a viewer's gets them emptied, without addresses", async () => {
    const admin = open(cookies.boss!);
    const viewer = open(cookies.vic!);
    await Promise.all([admin.hello, viewer.hello]);
    await fetch(`http://${base}/api/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "tina", password: "not-hers" }),
    });
    const deadline = Date.now() + 5000;
    while (
      Date.now() < deadline &&
      !admin.messages.some(
        (m) => m.type === "activity_log" && (m.data as { message?: string }).message === "Failed login for tina",
      )
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const whole = admin.messages.find(
      (m) => m.type === "activity_log" && (m.data as { message?: string }).message === "Failed login for tina",
    );
    expect((whole!.data as { data: { ip: string } }).data.ip).toBe("127.0.0.1");
    await new Promise((r) => setTimeout(r, 100));
    const seen = viewer.messages.filter((m) => m.type === "activity_log");
    expect(seen.length).toBeGreaterThan(0);
    expect(JSON.stringify(viewer.messages)).not.toContain("127.0.0.1");
    expect(JSON.stringify(viewer.messages)).not.toContain("Failed login for tina");
    admin.ws.close();
    viewer.ws.close();
  });

  test("disabling an account closes its live socket at once", async () => {
    const tina = open(cookies.tina!);
    await tina.hello;
    const users = (await (await fetch(`http://${base}/api/users`, { headers: { Cookie: cookies.boss! } })).json()) as {
      id: string;
      username: string;
    }[];
    const id = users.find((u) => u.username === "tina")!.id;
    const response = await fetch(`http://${base}/api/users/${id}`, {
      method: "PATCH",
      headers: { Cookie: cookies.boss!, "Content-Type": "application/json" },
      body: JSON.stringify({ disabled: true }),
    });
    expect(response.status).toBe(200);
    const code = await Promise.race([tina.closed, new Promise<number>((r) => setTimeout(() => r(-1), 2000))]);
    expect(code).toBe(SESSION_ENDED_CODE);
  });
});
