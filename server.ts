// The web process: one Hono app on Bun serving static files, Remix pages and /api routes
// on one port (PORT, default 5000).
import { existsSync, watch } from "node:fs";
import path from "node:path";
import { type AppLoadContext, type ServerBuild, broadcastDevReady, createRequestHandler } from "@remix-run/node";
import { Hono } from "hono";
import { getConnInfo, serveStatic, upgradeWebSocket, websocket } from "hono/bun";
import type { AppConfig } from "./app/core/env.ts";
import "./app/utils/context.server.ts";
import { LIVE_PUBLIC_TOPIC, LIVE_TOPIC, LiveHub, toWire } from "./app/services/live-hub.server.ts";
import { liveEventForNonAdmins } from "./app/core/auth/log-privacy.ts";
import { can } from "./app/core/auth/permissions.ts";
import { allowedHosts, forwardedClient, hostAllowed, originHost } from "./app/core/net/edge.ts";
import { MAX_BODY_BYTES as WEBHOOK_MAX_BODY_BYTES, webhookHttp } from "./app/services/webhook.server.ts";
import { withRequestOrigin } from "./app/core/request-origin.ts";
import {
  type ClosableSocket,
  closeSocketsOfSession,
  socketsOfSession,
  trackSocket,
  trackedSessions,
  untrackSocket,
} from "./app/services/session-sockets.server.ts";
import { SESSION_POLICY, readSessionToken } from "./app/utils/session.server.ts";
import { sessionPolicyRefusal } from "./app/services/session-policy.server.ts";
import type { Database } from "./db/client.ts";
import { getSessionUser, sessionIsLive } from "./db/queries/sessions.ts";
import { bindExchangeConfig } from "./exchange/factory.ts";

const BUILD_PATH = path.resolve("build/index.js");

export interface CreateAppOptions {
  config: AppConfig;
  database: Database;
  build: ServerBuild | (() => ServerBuild);
  mode?: string;
  /** The live hub whose events /ws clients receive (absent: /ws answers 503). */
  hub?: LiveHub;
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Request bodies (docs/security.md, "Request bodies"): the sign-in forms and APIs. */
export const AUTH_BODY_LIMIT = 8 * 1024;
/** Every other page form and /api route (the largest legitimate form is far below it). */
export const FORM_BODY_LIMIT = 64 * 1024;
/** Bun.serve's own bound (its default is 128 MiB): nothing larger is even handed to us. */
export const MAX_REQUEST_BODY = 1024 * 1024;
/** A body must arrive within this long, however slowly its bytes trickle in (slowloris). */
export const BODY_DEADLINE_MS = 10_000;
const AUTH_PATHS = new Set([
  "/login",
  "/register",
  "/two-factor",
  "/reset-password",
  "/logout",
  "/api/login",
  "/api/register",
  "/api/logout",
]);

export function bodyLimitFor(path: string): number {
  return AUTH_PATHS.has(path.replace(/\/+$/, "") || "/") ? AUTH_BODY_LIMIT : FORM_BODY_LIMIT;
}

/** A Host header we can route on: a name, an IPv4 or a bracketed IPv6, with an optional port. */
const HOST_SHAPE =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62})?(?:\.[A-Za-z0-9_-]{1,63})*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

type BodyRead = { ok: true; body: Uint8Array | null; size: number } | { ok: false; status: 408 | 413 };

/**
 * Reads a request body into memory up to `limit` bytes (one byte more tells "too large"),
 * within BODY_DEADLINE_MS from the first read, whatever the idle timer. A declared
 * Content-Length over the limit is refused before a byte is read.
 */
async function readBodyCapped(request: Request, limit: number, keepOverflow = false): Promise<BodyRead> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > limit && !keepOverflow) return { ok: false, status: 413 };
  if (!request.body) return { ok: true, body: null, size: 0 };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), BODY_DEADLINE_MS);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "late") {
        reader.cancel().catch(() => undefined);
        return { ok: false, status: 408 };
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => undefined);
        if (!keepOverflow) return { ok: false, status: 413 };
        // The webhook counts its own refusals (decision 017): hand it the first bytes over the cap.
        chunks.push(next.value.subarray(0, next.value.byteLength - (size - limit - 1)));
        size = limit + 1;
        break;
      }
      chunks.push(next.value);
    }
  } catch {
    return { ok: false, status: 408 };
  } finally {
    clearTimeout(timer);
  }
  return { ok: true, body: chunks.length === 1 ? chunks[0]! : new Uint8Array(Buffer.concat(chunks)), size };
}

/** The Hono app (no listening socket): used by the server and by the integration tests. */
export function createApp({
  config,
  database,
  build,
  hub,
  mode = process.env.NODE_ENV ?? "production",
}: CreateAppOptions) {
  const app = new Hono();
  // The exchange the services share for this database reads saved credentials with this app's secret.
  bindExchangeConfig(database.db, config);
  const getBuild = typeof build === "function" ? build : () => build;
  // One request handler per build (it compiles the route tree); a dev rebuild makes a new one.
  let current: { build: ServerBuild; handler: ReturnType<typeof createRequestHandler> } | null = null;
  const handlerFor = (b: ServerBuild) => {
    if (current?.build !== b) current = { build: b, handler: createRequestHandler(b, mode) };
    return current.handler;
  };

  const hosts = allowedHosts(config);
  const requestHost = (c: { req: { url: string; header(name: string): string | undefined } }) =>
    (config.TRUST_PROXY && c.req.header("x-forwarded-host")?.split(",")[0]?.trim()) ||
    c.req.header("host") ||
    new URL(c.req.url).host;

  // A missing or malformed Host (HTTP/1.0 without one, empty, "[::1", "a b") is a plain 400:
  // nothing below may parse it (docs/security.md, "Request bodies, hosts and sockets").
  app.use("*", async (c, next) => {
    // In-process requests (the tests' app.fetch, no Bun server in c.env) carry no Host header: their URL says it.
    const host = c.req.header("host") ?? (c.env ? undefined : new URL(c.req.url).host);
    const forwarded = config.TRUST_PROXY ? c.req.header("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
    if (!host || !HOST_SHAPE.test(host) || (forwarded !== undefined && !HOST_SHAPE.test(forwarded)))
      return c.text("Bad Request: missing or malformed Host header", 400);
    await next();
  });

  // DNS rebinding: only our own host names (docs/security.md). The TradingView webhook is
  // exempt: it is not a browser request and authenticates with its own secret.
  app.use("*", async (c, next) => {
    if (!c.req.path.startsWith("/api/webhook/") && !hostAllowed(requestHost(c), hosts)) {
      return c.text(
        `Unknown host. Set PUBLIC_URL or ALLOWED_HOSTS to the name this server is reached at (docs/security.md).`,
        421,
      );
    }
    await next();
  });

  // Browser hardening on every answer.
  app.use("*", async (c, next) => {
    await next();
    const h = c.res.headers;
    if (requestIsHttps(c.req.raw, config)) h.set("Strict-Transport-Security", "max-age=31536000");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "same-origin");
    // Documents bring their own policy with a per-page script nonce (entry.server.tsx).
    if (!h.has("Content-Security-Policy"))
      h.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
    if (!h.has("Cache-Control") && !c.req.path.startsWith("/build/")) h.set("Cache-Control", "no-store");
  });

  // Cross-site request forgery: a state-changing request from another site is refused.
  // The TradingView webhook is exempt (it authenticates with its own secret).
  app.use("*", async (c, next) => {
    if (UNSAFE.has(c.req.method) && !c.req.path.startsWith("/api/webhook/")) {
      const site = c.req.header("sec-fetch-site");
      const origin = originHost(c.req.header("origin"));
      const host = requestHost(c);
      // A malformed Origin is refused like a foreign one (it used to throw: a 500).
      const foreignOrigin = origin === undefined || (origin !== null && host && origin !== host);
      if (site === "cross-site" || foreignOrigin) {
        return c.json({ error: "Cross-site request refused" }, 403);
      }
    }
    await next();
  });

  // Request bodies: capped per route class and read within BODY_DEADLINE_MS here, before
  // Remix or a route parses anything (docs/security.md, "Request bodies, hosts and sockets").
  // The handlers below read the buffered copy (c.get("body")); the original request stays
  // c.req.raw, which Bun needs to tell the client's address.
  app.use("*", async (c, next) => {
    const raw = c.req.raw;
    if (raw.method === "GET" || raw.method === "HEAD") return next();
    const webhook = c.req.path.startsWith("/api/webhook/");
    const limit = webhook ? WEBHOOK_MAX_BODY_BYTES : bodyLimitFor(c.req.path);
    const read = await readBodyCapped(raw, limit, webhook);
    if (!read.ok) {
      c.header("Connection", "close");
      return read.status === 413
        ? c.json({ error: `Request body too large (limit ${limit / 1024} KiB)` }, 413)
        : c.json({ error: "Request body not received in time" }, 408);
    }
    const headers = new Headers(raw.headers);
    if (read.body) headers.set("content-length", String(read.size));
    c.set(
      "body" as never,
      new Request(raw.url, {
        method: raw.method,
        headers,
        body: read.body as BodyInit | null,
        signal: raw.signal,
      }) as never,
    );
    await next();
  });

  // Live updates. The upgrade needs a session and, from a browser, our own Origin.
  app.get(
    "/ws",
    async (c, next) => {
      if (!hub) return c.json({ error: "Live updates unavailable" }, 503);
      const origin = originHost(c.req.header("origin"));
      const host = requestHost(c);
      if (origin === undefined || (origin !== null && host && origin !== host))
        return c.json({ error: "Origin not allowed" }, 403);
      const token = await readSessionToken(c.req.raw, { config } as AppLoadContext);
      const session = token ? await getSessionUser(database.db, token, SESSION_POLICY) : null;
      if (!session) return c.json({ error: "Authentication required" }, 401);
      // The same session policy as pages and /api (issue 23: 2FA required for all).
      const refusal = await sessionPolicyRefusal(database.db, session.user);
      if (refusal) return c.json({ error: refusal }, 403);
      // One viewer cannot hold thousands of sockets: per session and per address (the open
      // handler enforces both again, since parallel upgrades all pass this check together).
      const ip = clientIp(c, config) ?? "unknown";
      if (
        socketsOfSession(token!) >= WS_SOCKETS_PER_SESSION ||
        (socketsPerAddress.get(ip) ?? 0) >= WS_SOCKETS_PER_ADDRESS
      ) {
        return c.json({ error: "Too many live connections" }, 429);
      }
      c.set("clientAddress" as never, ip as never);
      c.set("sessionToken" as never, token as never);
      // A role change ends the account's sessions (and so this socket): the role is fixed for the socket's life.
      c.set("sensitive" as never, can(session.user.role, "logs.sensitive") as never);
      await next();
    },
    upgradeWebSocket((c) => {
      const token = c.get("sessionToken" as never) as unknown as string;
      const sensitive = c.get("sensitive" as never) as unknown as boolean;
      const ip = c.get("clientAddress" as never) as unknown as string;
      // Abuse limits per socket: one resume, at most WS_MESSAGES_PER_SECOND messages a second
      // (more closes it with 1008), and a replay of at most REPLAY_LIMIT events (further
      // behind, the browser is told to refetch everything instead).
      let resumed = false;
      let windowStart = 0;
      let inWindow = 0;
      return {
        onOpen(_event, ws) {
          // Tracked by Bun's socket: Hono hands each event a new wrapper, so the wrapper from
          // onOpen never matched the one onClose untracked (sessions' counts only grew).
          trackSocket(token, ws.raw as ClosableSocket);
          socketsPerAddress.set(ip, (socketsPerAddress.get(ip) ?? 0) + 1);
          if (socketsOfSession(token) > WS_SOCKETS_PER_SESSION || socketsPerAddress.get(ip)! > WS_SOCKETS_PER_ADDRESS) {
            ws.close(TOO_MANY_SOCKETS_CODE, "Too many live connections");
            return;
          }
          (ws.raw as { subscribe(topic: string): void }).subscribe(sensitive ? LIVE_TOPIC : LIVE_PUBLIC_TOPIC);
          ws.send(JSON.stringify({ type: "hello", data: { lastEventId: hub!.lastEventId } }));
        },
        async onMessage(event, ws) {
          const now = Date.now();
          if (now - windowStart >= 1000) {
            windowStart = now;
            inWindow = 0;
          }
          if (++inWindow > WS_MESSAGES_PER_SECOND) {
            ws.close(1008, "Too many messages");
            return;
          }
          if (typeof event.data !== "string" || event.data.length > 1024) return;
          // {"type":"resume","lastEventId":N}: send what this browser missed while away.
          try {
            const message = JSON.parse(event.data) as { type?: string; lastEventId?: number };
            if (message?.type === "resume" && Number.isSafeInteger(message.lastEventId) && !resumed) {
              resumed = true;
              const from = Math.max(0, Number(message.lastEventId));
              if (hub!.lastEventId - from > REPLAY_LIMIT) {
                ws.send(JSON.stringify({ type: "resync", data: { lastEventId: hub!.lastEventId } }));
                return;
              }
              for (const missed of await hub!.replay(from, REPLAY_LIMIT))
                ws.send(toWire(sensitive ? missed : liveEventForNonAdmins(missed)));
            }
          } catch {
            // not JSON: ignored
          }
        },
        onClose(_event, ws) {
          untrackSocket(token, ws.raw as ClosableSocket);
          const left = (socketsPerAddress.get(ip) ?? 1) - 1;
          if (left > 0) socketsPerAddress.set(ip, left);
          else socketsPerAddress.delete(ip);
        },
      };
    }),
  );

  // The TradingView webhook: the hot path, answered here rather than through Remix.
  app.all("/api/webhook/:platform", (c) =>
    webhookHttp(
      database.db,
      (c.get("body" as never) as unknown as Request | undefined) ?? c.req.raw,
      c.req.param("platform"),
      { appSecret: config.appSecret, ip: clientIp(c, config), allowlist: config.WEBHOOK_ALLOWLIST },
    ),
  );

  app.use(
    "/build/*",
    serveStatic({
      root: "./public",
      onFound: (_p, c) => c.header("Cache-Control", "public, max-age=31536000, immutable"),
    }),
  );
  app.use("/favicon.svg", serveStatic({ root: "./public" }));
  app.use("/logo.svg", serveStatic({ root: "./public" }));

  app.all("*", async (c) => {
    const request = (c.get("body" as never) as unknown as Request | undefined) ?? c.req.raw;
    const isHttps = requestIsHttps(request, config);
    const ip = clientIp(c, config);
    const services: AppLoadContext = {
      db: database.db,
      database,
      config,
      clientIp: ip,
      isHttps: Boolean(isHttps),
    };
    // The audit trail names the address a change came from (db/queries/audit.ts).
    return withRequestOrigin({ ip }, () => handlerFor(getBuild())(request, services));
  });

  return app;
}

/** How often a web process checks that the sessions of its open sockets still exist. */
export const SESSION_SWEEP_MS = 5_000;

/** /ws: messages a socket may send per second before it is closed (1008). */
export const WS_MESSAGES_PER_SECOND = 20;
/** /ws: the most events a resume replays; further behind, the browser refetches instead. */
export const REPLAY_LIMIT = 500;
/** /ws: open sockets per session and per client address (more: 429 at the upgrade, or closed with 1008). */
export const WS_SOCKETS_PER_SESSION = 10;
export const WS_SOCKETS_PER_ADDRESS = 50;
const TOO_MANY_SOCKETS_CODE = 1008;
/** /ws: the largest frame a browser may send (it sends one small `resume`); larger closes the socket (1009) before it is buffered. */
export const WS_MAX_PAYLOAD = 4 * 1024;
const socketsPerAddress = new Map<string, number>();

/** Hono's Bun websocket handler with the frame cap: what Bun.serve gets (the tests' servers too). */
export const serverWebsocket = { ...websocket, maxPayloadLength: WS_MAX_PAYLOAD };
/** Bun.serve's request limits (docs/security.md): the outer body bound and the idle timer. */
export const SERVE_LIMITS = { maxRequestBodySize: MAX_REQUEST_BODY, idleTimeout: 60 };

function requestIsHttps(request: Request, config: AppConfig): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  return config.TRUST_PROXY && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

function clientIp(c: Parameters<Parameters<Hono["use"]>[1]>[0], config: AppConfig): string | null {
  if (config.TRUST_PROXY) {
    // The right-most hop that is not a proxy: the left-most is whatever the client wrote.
    const forwarded = forwardedClient(c.req.header("x-forwarded-for"));
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}

async function importBuild(): Promise<ServerBuild> {
  if (!existsSync(BUILD_PATH)) {
    throw new Error("No build found at build/index.js: run `npm run build` first (npm start does it for you).");
  }
  return (await import(`${BUILD_PATH}?t=${Date.now()}`)) as ServerBuild;
}

if (import.meta.main) {
  const { loadConfigOrExit } = await import("./app/core/env.ts");
  const { openDatabase } = await import("./db/client.ts");
  const { migrateToLatest } = await import("./db/migrate.ts");
  const config = loadConfigOrExit();
  const database = await openDatabase(config.databaseUrl);
  await migrateToLatest(database.db);
  // The product catalog (decision 051): the worker reads Coinbase's list; this process follows
  // what is stored (app/core/products.ts keeps it on globalThis, so the build sees it too).
  const { startCatalogSync } = await import("./exchange/coinbase/catalog.ts");
  const stopCatalog = await startCatalogSync(database.db);
  let build = await importBuild();
  const hub = new LiveHub({ db: database.db });
  const app = createApp({ config, database, build: () => build, hub });

  // reusePort: with WEB_PROCESSES > 1, `npm start` runs several of these on one port and the
  // kernel spreads connections over them (each has its own live hub and caches).
  const server = Bun.serve({
    port: config.PORT,
    hostname: config.HOST,
    fetch: app.fetch,
    websocket: serverWebsocket,
    ...SERVE_LIMITS,
    reusePort: config.WEB_PROCESSES > 1,
  });
  hub.attach(server);
  await hub.start();
  // Warm the build's caches in the background (app/entry.server.tsx warmUp); a failure is
  // only logged: the first request then builds them as before.
  const entry = build.entry.module as { warmUp?: (context: { db: Database["db"] }) => Promise<unknown> };
  entry
    .warmUp?.({ db: database.db })
    .catch((error) => console.error(`[web] warm-up failed: ${(error as Error).message}`));
  // Sessions ended elsewhere (another web process or node, expiry) lose their live feed
  // within SESSION_SWEEP_MS: one query per signed-in session with an open socket here.
  const sweep = setInterval(async () => {
    for (const token of trackedSessions()) {
      const alive = await sessionIsLive(database.db, token).catch(() => true);
      if (!alive) closeSocketsOfSession(token);
    }
  }, SESSION_SWEEP_MS);
  sweep.unref?.();
  console.log(`[web] listening on http://localhost:${server.port} (${database.label})`);

  if (process.env.REMIX_DEV_ORIGIN) {
    // `remix dev --manual`: reload the bundle in-process when a rebuild lands.
    broadcastDevReady(build);
    watch(path.dirname(BUILD_PATH), { persistent: false }, async (_event, file) => {
      if (file !== "version.txt") return;
      build = await importBuild();
      broadcastDevReady(build);
    });
  }

  // Once: a group signal (systemd, Ctrl-C) arrives here and again from `npm start`, which
  // passes SIGTERM on (docs/operations.md, "Several processes").
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    server.stop();
    stopCatalog();
    await hub.stop();
    await database.destroy();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}
