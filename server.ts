// The web process: one Hono app on Bun serving static files, Remix pages and /api routes
// on one port (PORT, default 5000).
import { existsSync, watch } from "node:fs";
import path from "node:path";
import { type AppLoadContext, type ServerBuild, broadcastDevReady, createRequestHandler } from "@remix-run/node";
import { Hono } from "hono";
import { getConnInfo, serveStatic, upgradeWebSocket, websocket } from "hono/bun";
import type { AppConfig } from "./app/core/env.ts";
import "./app/utils/context.server.ts";
import { LIVE_PUBLIC_TOPIC, LIVE_TOPIC, LiveHub, toWire } from "./app/live/hub.server.ts";
import { liveEventForNonAdmins } from "./app/core/auth/log-privacy.ts";
import { can } from "./app/core/auth/permissions.ts";
import { allowedHosts, forwardedClient, hostAllowed, originHost } from "./app/core/net/edge.ts";
import { webhookHttp } from "./app/services/webhook.server.ts";
import { withRequestOrigin } from "./app/core/request-origin.ts";
import { closeSocketsOfSession, trackSocket, trackedSessions, untrackSocket } from "./app/live/session-sockets.server.ts";
import { SESSION_POLICY, readSessionToken } from "./app/utils/session.server.ts";
import { sessionPolicyRefusal } from "./app/utils/session-policy.server.ts";
import type { Database } from "./db/client.ts";
import { getSessionUser, sessionIsLive } from "./db/queries/sessions.ts";

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

/** The Hono app (no listening socket): used by the server and by the integration tests. */
export function createApp({ config, database, build, hub, mode = process.env.NODE_ENV ?? "production" }: CreateAppOptions) {
  const app = new Hono();
  const getBuild = typeof build === "function" ? build : () => build;
  // One request handler per build (it compiles the route tree); a dev rebuild makes a new one.
  let current: { build: ServerBuild; handler: ReturnType<typeof createRequestHandler> } | null = null;
  const handlerFor = (b: ServerBuild) => {
    if (current?.build !== b) current = { build: b, handler: createRequestHandler(b, mode) };
    return current.handler;
  };

  const hosts = allowedHosts(config);
  const requestHost = (c: { req: { url: string; header(name: string): string | undefined } }) =>
    (config.TRUST_PROXY && c.req.header("x-forwarded-host")?.split(",")[0]?.trim()) || c.req.header("host") || new URL(c.req.url).host;

  // DNS rebinding: only our own host names (docs/security.md). The TradingView webhook is
  // exempt: it is not a browser request and authenticates with its own secret.
  app.use("*", async (c, next) => {
    if (!c.req.path.startsWith("/api/webhook/") && !hostAllowed(requestHost(c), hosts)) {
      return c.text(`Unknown host. Set PUBLIC_URL or ALLOWED_HOSTS to the name this server is reached at (docs/security.md).`, 421);
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
    if (!h.has("Content-Security-Policy")) h.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
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

  // Live updates. The upgrade needs a session and, from a browser, our own Origin.
  app.get(
    "/ws",
    async (c, next) => {
      if (!hub) return c.json({ error: "Live updates unavailable" }, 503);
      const origin = originHost(c.req.header("origin"));
      const host = requestHost(c);
      if (origin === undefined || (origin !== null && host && origin !== host)) return c.json({ error: "Origin not allowed" }, 403);
      const token = await readSessionToken(c.req.raw, { config } as AppLoadContext);
      const session = token ? await getSessionUser(database.db, token, SESSION_POLICY) : null;
      if (!session) return c.json({ error: "Authentication required" }, 401);
      // The same session policy as pages and /api (issue 23: 2FA required for all).
      const refusal = await sessionPolicyRefusal(database.db, session.user);
      if (refusal) return c.json({ error: refusal }, 403);
      c.set("sessionToken" as never, token as never);
      // A role change ends the account's sessions (and so this socket): the role is fixed for the socket's life.
      c.set("sensitive" as never, can(session.user.role, "logs.sensitive") as never);
      await next();
    },
    upgradeWebSocket((c) => {
      const token = c.get("sessionToken" as never) as unknown as string;
      const sensitive = c.get("sensitive" as never) as unknown as boolean;
      // Abuse limits per socket: one resume, at most WS_MESSAGES_PER_SECOND messages a second
      // (more closes it with 1008), and a replay of at most REPLAY_LIMIT events (further
      // behind, the browser is told to refetch everything instead).
      let resumed = false;
      let windowStart = 0;
      let inWindow = 0;
      return {
      onOpen(_event, ws) {
        trackSocket(token, ws);
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
            for (const missed of await hub!.replay(from, REPLAY_LIMIT)) ws.send(toWire(sensitive ? missed : liveEventForNonAdmins(missed)));
          }
        } catch {
          // not JSON: ignored
        }
      },
      onClose(_event, ws) {
        untrackSocket(token, ws);
      },
      };
    }),
  );

  // The TradingView webhook: the hot path, answered here rather than through Remix.
  app.all("/api/webhook/:platform", (c) =>
    webhookHttp(database.db, c.req.raw, c.req.param("platform"), { appSecret: config.appSecret, ip: clientIp(c, config), allowlist: config.WEBHOOK_ALLOWLIST }),
  );

  app.use("/build/*", serveStatic({ root: "./public", onFound: (_p, c) => c.header("Cache-Control", "public, max-age=31536000, immutable") }));
  app.use("/favicon.svg", serveStatic({ root: "./public" }));
  app.use("/logo.svg", serveStatic({ root: "./public" }));

  app.all("*", async (c) => {
    const request = c.req.raw;
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
  let build = await importBuild();
  const hub = new LiveHub({ db: database.db });
  const app = createApp({ config, database, build: () => build, hub });

  // reusePort: with WEB_PROCESSES > 1, `npm start` runs several of these on one port and the
  // kernel spreads connections over them (each has its own live hub and caches).
  const server = Bun.serve({ port: config.PORT, hostname: config.HOST, fetch: app.fetch, websocket, idleTimeout: 60, reusePort: config.WEB_PROCESSES > 1 });
  hub.attach(server);
  await hub.start();
  // Warm the build's caches in the background (app/entry.server.tsx warmUp); a failure is
  // only logged: the first request then builds them as before.
  const entry = build.entry.module as { warmUp?: (context: { db: Database["db"] }) => Promise<unknown> };
  entry.warmUp?.({ db: database.db }).catch((error) => console.error(`[web] warm-up failed: ${(error as Error).message}`));
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
    await hub.stop();
    await database.destroy();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}
