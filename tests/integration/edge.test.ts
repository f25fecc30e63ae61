// The request edge of a public server (issue 10), through the real Hono app: the Host
// allowlist (DNS rebinding), a malformed or foreign Origin, the client address behind a
// proxy, HSTS and the Secure cookie over https, the CSP nonce; and /ws over a real socket:
// one resume per connection, a message rate limit, a capped replay that asks for a resync.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { LiveHub } from "#app/services/live-hub.server.ts";
import { appendEvents } from "#db/queries/events.ts";
import { connect } from "node:net";
import {
  AUTH_BODY_LIMIT,
  BODY_DEADLINE_MS,
  FORM_BODY_LIMIT,
  REPLAY_LIMIT,
  WS_MAX_PAYLOAD,
  WS_MESSAGES_PER_SECOND,
  WS_SOCKETS_PER_SESSION,
} from "#server.ts";
import { type TestApp, cookieFrom, createTestApp, freshApp, registerVia } from "#tests/setup/app.ts";
import { type TestDatabase, testDialects } from "#tests/setup/db.ts";
import { type LiveServer, startLiveServer } from "#tests/setup/live-server.ts";

describe.each(testDialects())("request edge on %s", (dialect) => {
  const app = freshApp(dialect, { TRUST_PROXY: "true" });
  let configured: TestApp;
  beforeAll(async () => {
    await registerVia(app, "edge_owner");
    configured = await createTestApp(dialect, {
      PUBLIC_URL: "https://trade.example.com",
      ALLOWED_HOSTS: "backup.example.com",
    });
  });
  afterAll(async () => {
    await configured?.cleanup();
  });

  test("Host: a dotted name nobody configured is 421 (DNS rebinding); localhost and IPs answer; the webhook is exempt", async () => {
    const evil = await app.fetch("/login", { headers: { Host: "attacker.example" } });
    expect(evil.status).toBe(421);
    expect(await evil.text()).toContain("PUBLIC_URL or ALLOWED_HOSTS");
    expect((await app.fetch("/login", { headers: { Host: "localhost:5000" } })).status).toBe(200);
    expect((await app.fetch("/login", { headers: { Host: "192.168.1.20:5000" } })).status).toBe(200);
    const hook = await app.fetch("/api/webhook/tradingview", {
      method: "POST",
      headers: { Host: "attacker.example" },
      json: { secret: "wrong" },
    });
    expect(hook.status).not.toBe(421);
  });

  test("Host with PUBLIC_URL / ALLOWED_HOSTS: exactly those names", async () => {
    expect((await configured.fetch("/login", { headers: { Host: "trade.example.com" } })).status).toBe(200);
    expect((await configured.fetch("/login", { headers: { Host: "backup.example.com" } })).status).toBe(200);
    expect((await configured.fetch("/login", { headers: { Host: "localhost:5000" } })).status).toBe(421);
    expect((await configured.fetch("/login", { headers: { Host: "trade.example.com.attacker.example" } })).status).toBe(
      421,
    );
  });

  test("Origin: malformed is 403 (not 500), foreign is 403, our own passes; nothing is written", async () => {
    const logins = async () =>
      Number(
        (
          await app.database.db
            .selectFrom("activity_logs")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await logins();
    for (const origin of ["http://[", "not a url", "javascript:alert(1)", "https://attacker.example"]) {
      const answer = await app.fetch("/api/login", {
        method: "POST",
        headers: { Origin: origin },
        json: { username: "edge_owner", password: "wrong1" },
      });
      expect(answer.status, origin).toBe(403);
    }
    expect(
      (await app.fetch("/api/login", { method: "POST", headers: { "Sec-Fetch-Site": "cross-site" }, json: {} })).status,
    ).toBe(403);
    expect(await logins()).toBe(before);
    const own = await app.fetch("/api/login", {
      method: "POST",
      headers: { Origin: "http://localhost:5000" },
      json: { username: "edge_owner", password: "secret123" },
    });
    expect(own.status).toBe(200);
  });

  test("X-Forwarded-For with TRUST_PROXY: the right-most untrusted hop is the client, whatever the client put on the left", async () => {
    const answer = await app.fetch("/api/login", {
      method: "POST",
      headers: { "X-Forwarded-For": "6.6.6.6, 203.0.113.44, 10.0.0.2" },
      json: { username: "edge_owner", password: "wrong-password" },
    });
    expect(answer.status).toBe(401);
    const row = await app.database.db
      .selectFrom("activity_logs")
      .select("data")
      .where("message", "=", "Failed login for edge_owner")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(String(row.data)).ip).toBe("203.0.113.44");
  });

  test("https behind the proxy: HSTS and a Secure session cookie; plain http: neither", async () => {
    const https = await app.fetch("/api/login", {
      method: "POST",
      headers: { "X-Forwarded-Proto": "https" },
      json: { username: "edge_owner", password: "secret123" },
    });
    expect(https.headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect(https.headers.getSetCookie().find((c) => c.startsWith("tv_session="))).toMatch(/; Secure/i);
    const http = await app.fetch("/api/login", {
      method: "POST",
      json: { username: "edge_owner", password: "secret123" },
    });
    expect(http.headers.get("strict-transport-security")).toBeNull();
    expect(http.headers.getSetCookie().find((c) => c.startsWith("tv_session="))).not.toMatch(/; Secure/i);
  });

  test("PUBLIC_URL on https: the session cookie is Secure even on a plain-http request", async () => {
    const registered = await configured.fetch("/api/register", {
      method: "POST",
      headers: { Host: "trade.example.com" },
      json: { username: "secure_owner", password: "secret123" },
    });
    expect(registered.status).toBe(201);
    const answer = await configured.fetch("/api/login", {
      method: "POST",
      headers: { Host: "trade.example.com" },
      json: { username: "secure_owner", password: "secret123" },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.getSetCookie().find((c) => c.startsWith("tv_session="))).toMatch(/; Secure/i);
  });

  test("CSP: each document has its own script nonce and every inline script carries it; JSON answers allow nothing", async () => {
    const policies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const page = await app.fetch("/login");
      const policy = page.headers.get("content-security-policy")!;
      policies.push(policy);
      const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
      expect(nonce).toBeDefined();
      expect(policy).toContain("object-src 'none'");
      expect(policy).toContain("frame-ancestors 'none'");
      const html = await page.text();
      const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
      expect(scripts.length).toBeGreaterThan(0);
      for (const attrs of scripts) {
        if (/\bsrc=/.test(attrs)) continue;
        expect(attrs).toContain(`nonce="${nonce}"`);
      }
    }
    expect(policies[0]).not.toBe(policies[1]);
    const api = await app.fetch("/api/health");
    expect(api.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  test("list limits: fractional, negative and huge values are clamped, never a 500", async () => {
    const cookie = cookieFrom(
      await app.fetch("/api/login", { method: "POST", json: { username: "edge_owner", password: "secret123" } }),
    )!;
    for (const path of ["/api/signals", "/api/trades", "/api/logs", "/api/reports"]) {
      for (const limit of ["1.5", "-3", "1e309", "99999999999999999999", "abc", ""]) {
        const answer = await app.fetch(`${path}?limit=${encodeURIComponent(limit)}`, { cookie });
        expect(answer.status, `${path}?limit=${limit}`).toBe(200);
      }
    }
  });
});

describe.each(testDialects())("/ws abuse limits on %s", (dialect) => {
  let live: LiveServer;
  let hub: LiveHub;
  let database: TestDatabase;
  let base: string;
  let cookie: string;
  beforeAll(async () => {
    live = await startLiveServer(dialect);
    ({ hub, database, base } = live);
    cookie = await live.register("ws_owner");
  });
  afterAll(async () => {
    await live?.stop();
  });

  function open(headers: Record<string, string> = { Cookie: cookie }) {
    const ws = new WebSocket(`ws://${base}/ws`, { headers } as never);
    const messages: { type: string; id?: number; data?: { lastEventId?: number } }[] = [];
    ws.addEventListener("message", (e) => messages.push(JSON.parse(String(e.data))));
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    const opened = new Promise<void>((resolve, reject) => {
      ws.addEventListener("open", () => resolve());
      ws.addEventListener("error", () => reject(new Error("socket error")));
    });
    const until = async (probe: () => boolean, ms = 3000) => {
      const end = Date.now() + ms;
      while (!probe() && Date.now() < end) await Bun.sleep(10);
    };
    return { ws, messages, closed, opened, until };
  }

  async function writeEvents(n: number) {
    const before = hub.lastEventId;
    await appendEvents(
      database.db,
      Array.from({ length: n }, (_, i) => ({ type: "activity_log" as never, data: { n: i } })),
    );
    const end = Date.now() + 5000;
    while (hub.lastEventId < before + n && Date.now() < end) await Bun.sleep(10);
    expect(hub.lastEventId).toBeGreaterThanOrEqual(before + n);
  }

  test("no session or a foreign Origin: no socket", async () => {
    const anonymous = await fetch(`http://${base}/ws`, {
      headers: {
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
      },
    });
    expect(anonymous.status).toBe(401);
    const foreign = await fetch(`http://${base}/ws`, {
      headers: {
        Cookie: cookie,
        Origin: "https://attacker.example",
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
      },
    });
    expect(foreign.status).toBe(403);
  });

  test("one resume per connection: a second one replays nothing", async () => {
    await writeEvents(3);
    const socket = open();
    await socket.opened;
    await socket.until(() => socket.messages.some((m) => m.type === "hello"));
    const from = hub.lastEventId - 3;
    socket.ws.send(JSON.stringify({ type: "resume", lastEventId: from }));
    await socket.until(() => socket.messages.filter((m) => m.id !== undefined).length >= 3);
    expect(socket.messages.filter((m) => m.id !== undefined).map((m) => m.id)).toEqual([from + 1, from + 2, from + 3]);
    socket.ws.send(JSON.stringify({ type: "resume", lastEventId: from }));
    await Bun.sleep(200);
    expect(socket.messages.filter((m) => m.id !== undefined)).toHaveLength(3);
    socket.ws.close();
  });

  test(`more than ${WS_MESSAGES_PER_SECOND} messages a second close the socket with 1008`, async () => {
    const socket = open();
    await socket.opened;
    for (let i = 0; i < WS_MESSAGES_PER_SECOND * 3; i++) socket.ws.send("x");
    const code = await Promise.race([socket.closed, Bun.sleep(3000).then(() => -1)]);
    expect(code).toBe(1008);
  });

  test(`a resume more than ${REPLAY_LIMIT} events behind gets 'resync' instead of a flood`, async () => {
    await writeEvents(REPLAY_LIMIT + 20);
    const socket = open();
    await socket.opened;
    await socket.until(() => socket.messages.some((m) => m.type === "hello"));
    socket.ws.send(JSON.stringify({ type: "resume", lastEventId: 0 }));
    await socket.until(() => socket.messages.some((m) => m.type === "resync"));
    expect(socket.messages.find((m) => m.type === "resync")?.data?.lastEventId).toBe(hub.lastEventId);
    expect(socket.messages.filter((m) => m.id !== undefined)).toHaveLength(0);
    socket.ws.close();
  });

  test("hostile frames (binary, huge, not JSON, odd resumes) are ignored; the socket stays open", async () => {
    const socket = open();
    await socket.opened;
    const frames: (string | Uint8Array)[] = [
      new Uint8Array([0, 1, 2, 255]),
      "x".repeat(WS_MAX_PAYLOAD),
      "{",
      "null",
      "[]",
      JSON.stringify({ type: "resume", lastEventId: "1" }),
      JSON.stringify({ type: "resume", lastEventId: -5e20 }),
      JSON.stringify({ type: "resume", lastEventId: 1.5 }),
      JSON.stringify({ type: "__proto__", lastEventId: 1 }),
      JSON.stringify({ type: "resume", lastEventId: Number.MAX_SAFE_INTEGER }),
    ];
    for (const frame of frames) socket.ws.send(frame);
    await Bun.sleep(300);
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    socket.ws.close();
  });

  test(`a frame over ${WS_MAX_PAYLOAD} bytes closes the socket (1009) before it is buffered; the server keeps serving`, async () => {
    const socket = open();
    await socket.opened;
    socket.ws.send("x".repeat(16 * 1024 * 1024));
    expect(await socket.closed).toBe(1009);
    expect((await fetch(`http://${base}/api/health`)).status).toBe(200);
  });

  test(`at most ${WS_SOCKETS_PER_SESSION} sockets per session: more are refused (429 at the upgrade, or closed with 1008)`, async () => {
    await Bun.sleep(300); // the sockets of the tests above are closed by now
    const sockets = Array.from({ length: WS_SOCKETS_PER_SESSION + 15 }, () => open());
    const outcomes = await Promise.all(
      sockets.map((s) =>
        s.opened.then(
          () => "open",
          () => "refused",
        ),
      ),
    );
    await Bun.sleep(300);
    const stillOpen = sockets.filter((s) => s.ws.readyState === WebSocket.OPEN);
    expect(stillOpen.length).toBe(WS_SOCKETS_PER_SESSION);
    expect(
      outcomes.filter((o) => o === "refused").length +
        sockets.filter((s) => s.ws.readyState !== WebSocket.OPEN && s.ws.readyState !== WebSocket.CONNECTING).length,
    ).toBeGreaterThanOrEqual(15);
    // Another session of the same viewer's account is counted on its own.
    const other = open({ Cookie: await live.register("ws_other") });
    await other.opened;
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    for (const s of [...sockets, other]) s.ws.close();
    await Promise.all([...sockets, other].map((s) => s.closed));
    await Bun.sleep(200);
    // Closed sockets free their places.
    const again = open();
    await again.opened;
    expect(again.ws.readyState).toBe(WebSocket.OPEN);
    again.ws.close();
  });
});

/** One raw HTTP exchange over TCP: what the server answers (the connection is closed by either side). */
function rawHttp(
  base: string,
  head: string,
  body: (socket: import("node:net").Socket) => void = () => undefined,
  timeoutMs = 30_000,
): Promise<{ text: string; ms: number }> {
  const [host, port] = base.split(":");
  const started = Date.now();
  return new Promise((resolve) => {
    let text = "";
    const socket = connect(Number(port), host!, () => {
      socket.write(head);
      body(socket);
    });
    const done = () => {
      clearTimeout(timer);
      resolve({ text, ms: Date.now() - started });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      done();
    }, timeoutMs);
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      if (/\r\n\r\n/.test(text) && (/content-length: (\d+)/i.exec(text)?.[1] ?? null) !== null) {
        const length = Number(/content-length: (\d+)/i.exec(text)![1]);
        if (text.length - text.indexOf("\r\n\r\n") - 4 >= length) socket.destroy();
      }
    });
    socket.on("close", done);
    socket.on("error", () => undefined);
  });
}

describe.each(testDialects())("request bodies and hosts on %s", (dialect) => {
  let live: LiveServer;
  let base: string;
  beforeAll(async () => {
    live = await startLiveServer(dialect);
    base = live.base;
  });
  afterAll(async () => {
    await live?.stop();
  });

  test("a missing or malformed Host is a plain 400, never a 500 or a stack trace", async () => {
    const heads = [
      "GET /login HTTP/1.0\r\n\r\n",
      "GET /login HTTP/1.1\r\nHost: \r\nConnection: close\r\n\r\n",
      "GET /login HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n",
      "GET /login HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n",
      "POST /login HTTP/1.0\r\nContent-Length: 3\r\n\r\na=b",
      "GET /api/health HTTP/1.1\r\nHost: x/y\r\nConnection: close\r\n\r\n",
    ];
    for (const head of heads) {
      const { text } = await rawHttp(base, head);
      expect(text.split("\r\n")[0], JSON.stringify(head)).toMatch(/^HTTP\/1\.[01] 400/);
      expect(text).not.toMatch(/\bat .*\.(ts|js):\d+|Error:|TypeError|stack/i);
    }
    // A well-formed host still answers.
    expect(
      (await rawHttp(base, `GET /api/health HTTP/1.1\r\nHost: ${base}\r\nConnection: close\r\n\r\n`)).text,
    ).toMatch(/^HTTP\/1\.1 200/);
  });

  test(`bodies are capped before anything parses them: ${AUTH_BODY_LIMIT / 1024} KiB on the sign-in forms, ${FORM_BODY_LIMIT / 1024} KiB elsewhere, declared or streamed`, async () => {
    const form = (size: number) => `username=x&password=${"p".repeat(size)}`;
    const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
      fetch(`http://${base}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
        body,
        duplex: "half",
      } as RequestInit);
    for (const path of ["/login", "/register", "/two-factor", "/api/login", "/api/register"]) {
      const response = await post(path, form(AUTH_BODY_LIMIT));
      expect(response.status, path).toBe(413);
      expect(await response.text()).toContain("too large");
      // A legitimate sign-in form is far below it.
      expect((await post(path, "username=x&password=y")).status, path).not.toBe(413);
    }
    // Chunked (no Content-Length): counted while read and cut at the cap.
    const chunked = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode("p".repeat(1024)));
          controller.close();
        },
      });
    expect((await post("/login", chunked())).status).toBe(413);
    // Other page forms and /api: the form cap.
    expect((await post("/strategies", form(FORM_BODY_LIMIT))).status).toBe(413);
    expect((await post("/api/orders", form(FORM_BODY_LIMIT))).status).toBe(413);
    expect((await post("/strategies", form(FORM_BODY_LIMIT / 2))).status).not.toBe(413);
    // Bun's own outer bound: a declared 120 MB body is refused unread.
    const declared = await rawHttp(
      base,
      `POST /login HTTP/1.1\r\nHost: ${base}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${120 * 1024 * 1024}\r\n\r\n`,
    );
    expect(declared.text).toMatch(/^HTTP\/1\.1 413/);
    expect((await fetch(`http://${base}/api/health`)).status).toBe(200);
  });

  test(`a body trickling in (each byte resetting the idle timer) is cut after ${BODY_DEADLINE_MS / 1000} s with 408`, async () => {
    let timer: ReturnType<typeof setInterval> | undefined;
    const { text, ms } = await rawHttp(
      base,
      `POST /login HTTP/1.1\r\nHost: ${base}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 4000\r\n\r\n`,
      (socket) => {
        timer = setInterval(() => socket.write("a"), 250);
        socket.on("close", () => clearInterval(timer));
      },
      BODY_DEADLINE_MS + 10_000,
    );
    clearInterval(timer);
    expect(text.split("\r\n")[0]).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(BODY_DEADLINE_MS + 3000);
  }, 30_000);
});
