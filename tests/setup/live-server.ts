// A real server for tests that need sockets: Bun.serve over the same Hono app the web
// process runs, with the live hub tailing the test database. `register` signs up through
// the API (the first account is the admin; later ones get an invitation made straight in
// the database) and answers the session cookie.
import { loadConfig } from "#app/core/env.ts";
import { LiveHub } from "#app/services/live-hub.server.ts";
import type { Role } from "#app/core/auth/permissions.ts";
import { createInvite } from "#db/queries/invites.ts";
import { countUsers } from "#db/queries/users.ts";
import { SERVE_LIMITS, createApp, serverWebsocket } from "#server.ts";
import { loadBuild } from "./app.ts";
import type { Dialect } from "#db/client.ts";
import { type TestDatabase, createTestDatabase } from "./db.ts";

export interface LiveServer {
  database: TestDatabase;
  hub: LiveHub;
  /** host:port */
  base: string;
  register(username: string, role?: Role, password?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startLiveServer(dialect: Dialect, env: Record<string, string> = {}): Promise<LiveServer> {
  const database = await createTestDatabase(dialect);
  const config = loadConfig({
    NODE_ENV: "production",
    APP_SECRET: "live-server-secret-0123456789abcdef0123456",
    DATA_DIR: "/tmp/perpdesk-test-unused",
    ...env,
  });
  const hub = new LiveHub({ db: database.db });
  const app = createApp({ config, database, build: await loadBuild(), hub, mode: "production" });
  // env.PORT: listen there (the app's config says the same port: it posts to itself, e.g. Send test alert).
  const server = Bun.serve({
    port: env.PORT ? Number(env.PORT) : 0,
    hostname: "127.0.0.1",
    fetch: app.fetch,
    websocket: serverWebsocket,
    ...SERVE_LIMITS,
  });
  hub.attach(server);
  await hub.start();
  const base = `127.0.0.1:${server.port}`;
  return {
    database,
    hub,
    base,
    async register(username, role = "trader", password = "secret123") {
      const invite =
        (await countUsers(database.db)) > 0
          ? (await createInvite(database.db, { role, createdBy: null })).code
          : undefined;
      const response = await fetch(`http://${base}/api/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username, password, invite }),
      });
      if (response.status !== 201) throw new Error(`register ${username}: ${response.status} ${await response.text()}`);
      return response.headers
        .getSetCookie()
        .map((h) => h.split(";")[0]!)
        .find((p) => p.startsWith("tv_session="))!;
    },
    async stop() {
      server.stop(true);
      await hub.stop();
      await database.cleanup();
    },
  };
}
