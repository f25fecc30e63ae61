// Who may do what (issue 10): every page, page action and /api route of the app, for an
// anonymous visitor, a viewer, a trader and an admin, generated from ONE table. A request a
// role may make but with an empty or invalid body answers 400 (past the permission check,
// nothing done); a refused one answers 401/403 and changes nothing. A meta-test fails when a
// route file is missing from the table, so a new route cannot slip through unguarded.
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { setCatalog } from "#app/core/products.ts";
import { useCoinbaseFake } from "#tests/msw/server.ts";
import { type TestApp, freshApp, registerVia } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

type Who = "anonymous" | "viewer" | "trader" | "admin";
interface Row {
  /** The route file (under app/routes) this row covers. */
  file: string;
  method: string;
  path: string;
  form?: Record<string, string>;
  json?: unknown;
  /** Expected status for anonymous, viewer, trader, admin. */
  expect: [number, number, number, number];
  /** A state that must not change when the call is refused (checked for refused roles). */
  guard?: keyof typeof PROBES;
}

const PAGE = (file: string, path: string, admin = false): Row => ({
  file,
  method: "GET",
  path,
  expect: [302, admin ? 403 : 200, admin ? 403 : 200, 200],
});
const READ = (file: string, path: string, admin = false): Row => ({
  file,
  method: "GET",
  path,
  expect: [401, admin ? 403 : 200, admin ? 403 : 200, 200],
});
const ADMIN_WRITE = (file: string, method: string, path: string, extra: Partial<Row> = {}): Row => ({
  file,
  method,
  path,
  json: {},
  expect: [401, 403, 403, 400],
  ...extra,
});
const TRADER_WRITE = (file: string, method: string, path: string, extra: Partial<Row> = {}): Row => ({
  file,
  method,
  path,
  json: {},
  expect: [401, 403, 400, 400],
  ...extra,
});

// What the dangerous calls would change, read straight from the database.
const PROBES = {
  trades: (app: TestApp) =>
    app.database.db
      .selectFrom("trades")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst()
      .then((r) => Number(r?.n)),
  jobs: (app: TestApp) =>
    app.database.db
      .selectFrom("jobs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst()
      .then((r) => Number(r?.n)),
  settings: (app: TestApp) =>
    app.database.db
      .selectFrom("settings")
      .select(["key", "value"])
      .orderBy("key")
      .execute()
      .then((r) => JSON.stringify(r)),
  profiles: (app: TestApp) =>
    app.database.db
      .selectFrom("profiles")
      .select(["id", "active"])
      .orderBy("id")
      .execute()
      .then((r) => JSON.stringify(r)),
  reports: (app: TestApp) =>
    app.database.db
      .selectFrom("reports")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst()
      .then((r) => Number(r?.n)),
  users: (app: TestApp) =>
    app.database.db
      .selectFrom("users")
      .select(["id", "role", "disabled"])
      .orderBy("id")
      .execute()
      .then((r) => JSON.stringify(r)),
  strategies: (app: TestApp) =>
    app.database.db
      .selectFrom("strategies")
      .selectAll()
      .orderBy("id")
      .execute()
      .then((r) => JSON.stringify(r)),
  heartbeats: (app: TestApp) =>
    app.database.db
      .selectFrom("strategy_heartbeats")
      .selectAll()
      .orderBy("strategy_key")
      .execute()
      .then((r) => JSON.stringify(r)),
};

const TABLE: Row[] = [
  // Pages (GET): every signed-in role reads; admin screens are 403 for the others.
  PAGE("_app+/_index.tsx", "/"),
  PAGE("_app+/dashboard.tsx", "/dashboard"),
  PAGE("_app+/positions.tsx", "/positions"),
  PAGE("_app+/exchanges.tsx", "/exchanges"),
  PAGE("_app+/manual-trading.tsx", "/manual-trading"),
  PAGE("_app+/history.tsx", "/history"),
  PAGE("_app+/trade-history.tsx", "/trade-history"),
  PAGE("_app+/trades.tsx", "/trades"),
  PAGE("_app+/signals.tsx", "/signals"),
  PAGE("_app+/logs.tsx", "/logs"),
  PAGE("_app+/profiles.tsx", "/profiles"),
  PAGE("_app+/market-data.tsx", "/market-data"),
  PAGE("_app+/reports.tsx", "/reports"),
  PAGE("_app+/coming-soon.tsx", "/coming-soon"),
  PAGE("_app+/api-settings.tsx", "/api-settings", true),
  PAGE("_app+/webhook.tsx", "/webhook", true),
  PAGE("_app+/trading-rules.tsx", "/trading-rules", true),
  PAGE("_app+/users.tsx", "/users", true),
  PAGE("_app+/audit.tsx", "/audit", true),
  PAGE("_app+/notifications.tsx", "/notifications", true),
  PAGE("_app+/account.tsx", "/account"),
  PAGE("_app+/strategies.tsx", "/strategies"),
  PAGE("_app+/performance.tsx", "/performance?range=7d"),
  PAGE("_app+/replay.tsx", "/replay"),
  // The what-if replay reads only: every role may post it (an empty form or body is 400, nothing written).
  {
    file: "_app+/replay.tsx",
    method: "POST",
    path: "/replay",
    form: { from: "" },
    expect: [302, 400, 400, 400],
    guard: "trades",
  },
  {
    file: "_app+/positions_.$id.chart.tsx",
    method: "GET",
    path: "/positions/no-such-position/chart",
    expect: [302, 404, 404, 404],
  },
  // One signal's latency timeline rendered on the server (the dashboard's no-JavaScript link): every role reads it.
  { file: "_app+/signals_.$id.tsx", method: "GET", path: "/signals/no-such-signal", expect: [302, 404, 404, 404] },
  {
    file: "_app+/strategies.tsx",
    method: "POST",
    path: "/strategies",
    form: { intent: "nonsense" },
    expect: [302, 403, 403, 400],
    guard: "strategies",
  },
  { file: "_app+/$.tsx", method: "GET", path: "/no-such-page/deeper", expect: [302, 404, 404, 404] },
  { file: "_app+/_layout.tsx", method: "GET", path: "/dashboard", expect: [302, 200, 200, 200] },

  // Page actions (form posts, as without JavaScript).
  {
    file: "_app+/dashboard.tsx",
    method: "POST",
    path: "/dashboard",
    form: { intent: "place-order" },
    expect: [302, 403, 400, 400],
    guard: "trades",
  },
  {
    file: "_app+/_index.tsx",
    method: "POST",
    path: "/?index",
    form: { intent: "place-order" },
    expect: [302, 403, 400, 400],
    guard: "trades",
  },
  {
    file: "_app+/manual-trading.tsx",
    method: "POST",
    path: "/manual-trading",
    form: {
      intent: "place-order",
      symbol: "BTC-PERP",
      side: "buy",
      orderType: "market",
      amountType: "quantity",
      quantity: "0.001",
      leverage: "1",
      marginType: "cross",
    },
    expect: [302, 403, 302, 302],
    guard: "trades",
  },
  {
    file: "_app+/dashboard.tsx",
    method: "POST",
    path: "/dashboard",
    form: { intent: "reset-emergency-stop" },
    expect: [302, 403, 403, 302],
    guard: "settings",
  },
  {
    file: "_app+/dashboard.tsx",
    method: "POST",
    path: "/dashboard",
    form: { intent: "emergency-stop" },
    expect: [302, 302, 302, 302],
  },
  {
    file: "_app+/dashboard.tsx",
    method: "POST",
    path: "/dashboard",
    form: { intent: "reset-emergency-stop" },
    expect: [302, 403, 403, 302],
    guard: "settings",
  },
  {
    file: "_app+/dashboard.tsx",
    method: "POST",
    path: "/dashboard",
    form: { intent: "nonsense" },
    expect: [302, 400, 400, 400],
  },
  // Unconfirmed: answers the confirmation page (decision 041), queues nothing.
  {
    file: "_app+/dashboard.tsx",
    method: "POST",
    path: "/dashboard",
    form: { intent: "flatten" },
    expect: [302, 403, 200, 200],
    guard: "jobs",
  },
  {
    file: "_app+/positions.tsx",
    method: "POST",
    path: "/positions",
    form: { intent: "close", symbol: "BTC-PERP" },
    expect: [302, 403, 302, 302],
    guard: "jobs",
  },
  // Unconfirmed: answers the confirmation page (decision 041), queues nothing.
  {
    file: "_app+/positions.tsx",
    method: "POST",
    path: "/positions",
    form: { intent: "flatten" },
    expect: [302, 403, 200, 200],
    guard: "jobs",
  },
  {
    file: "_app+/positions.tsx",
    method: "POST",
    path: "/positions",
    form: { intent: "cancel-all" },
    expect: [302, 403, 302, 302],
    guard: "jobs",
  },
  {
    file: "_app+/positions.tsx",
    method: "POST",
    path: "/positions",
    form: { intent: "edit", id: "nope", stopLoss: "1" },
    expect: [302, 403, 404, 404],
    guard: "trades",
  },
  {
    file: "_app+/positions.tsx",
    method: "POST",
    path: "/positions",
    form: { intent: "close-part", symbol: "BTC-PERP", amount: "50", unit: "percent" },
    expect: [302, 403, 302, 302],
    guard: "jobs",
  },
  {
    file: "_app+/positions.tsx",
    method: "POST",
    path: "/positions",
    form: { intent: "cancel-order", id: "nope" },
    expect: [302, 403, 302, 302],
    guard: "jobs",
  },
  {
    file: "_app+/profiles.tsx",
    method: "POST",
    path: "/profiles",
    form: { intent: "create", name: "" },
    expect: [302, 403, 403, 400],
    guard: "profiles",
  },
  {
    file: "_app+/profiles.tsx",
    method: "POST",
    path: "/profiles",
    form: { intent: "transfer" },
    expect: [302, 403, 403, 400],
    guard: "profiles",
  },
  {
    file: "_app+/reports.tsx",
    method: "POST",
    path: "/reports",
    form: { type: "nope" },
    expect: [302, 403, 403, 400],
    guard: "reports",
  },
  {
    file: "_app+/exchanges.tsx",
    method: "POST",
    path: "/exchanges",
    form: { intent: "add" },
    expect: [302, 403, 403, 400],
    guard: "settings",
  },
  {
    file: "_app+/api-settings.tsx",
    method: "POST",
    path: "/api-settings",
    form: { intent: "save" },
    expect: [302, 403, 403, 400],
    guard: "settings",
  },
  {
    file: "_app+/trading-rules.tsx",
    method: "POST",
    path: "/trading-rules",
    form: { takeProfitLevels: "nope" },
    expect: [302, 403, 403, 400],
    guard: "settings",
  },
  {
    file: "_app+/webhook.tsx",
    method: "POST",
    path: "/webhook",
    form: { intent: "nonsense" },
    expect: [302, 403, 403, 400],
    guard: "settings",
  },
  {
    file: "_app+/notifications.tsx",
    method: "POST",
    path: "/notifications",
    form: { intent: "general", rateLimitPerMinute: "nope" },
    expect: [302, 403, 403, 400],
    guard: "settings",
  },
  // Everyone manages their own two-factor authentication; a wrong code changes nothing.
  {
    file: "_app+/account.tsx",
    method: "POST",
    path: "/account",
    form: { intent: "confirm", code: "123456" },
    expect: [302, 400, 400, 400],
    guard: "users",
  },
  {
    file: "_app+/users.tsx",
    method: "POST",
    path: "/users",
    form: { intent: "settings", registrationOpen: "on" },
    expect: [302, 403, 403, 302],
    guard: "settings",
  },
  {
    file: "_app+/users.tsx",
    method: "POST",
    path: "/users",
    form: { intent: "settings" },
    expect: [302, 403, 403, 302],
    guard: "settings",
  },
  {
    file: "_app+/users.tsx",
    method: "POST",
    path: "/users",
    form: { intent: "nonsense" },
    expect: [302, 403, 403, 400],
    guard: "users",
  },

  // JSON API: reads.
  READ("api+/user.ts", "/api/user"),
  { file: "api+/health.ts", method: "GET", path: "/api/health", expect: [200, 200, 200, 200] },
  READ("api+/performance-stats.ts", "/api/performance-stats"),
  READ("api+/closed-trades-pnl.ts", "/api/closed-trades-pnl"),
  READ("api+/signals.ts", "/api/signals"),
  READ("api+/signals.latency.ts", "/api/signals/latency"),
  { file: "api+/signals.$id.ts", method: "GET", path: "/api/signals/no-such-signal", expect: [401, 404, 404, 404] },
  READ("api+/trades.ts", "/api/trades"),
  READ("api+/trades.summary.ts", "/api/trades/summary"),
  READ("api+/logs.ts", "/api/logs"),
  READ("api+/positions.ts", "/api/positions"),
  READ("api+/balance.ts", "/api/balance"),
  READ("api+/dashboard.stats.ts", "/api/dashboard/stats"),
  READ("api+/portfolio-summary.ts", "/api/portfolio-summary"),
  READ("api+/trading-config.ts", "/api/trading-config"),
  READ("api+/market.products.ts", "/api/market/products"),
  // Coinbase's product list comes from the fake (below): the admin's read answers 200.
  {
    file: "api+/market.products.refresh.ts",
    method: "POST",
    path: "/api/market/products/refresh",
    expect: [401, 403, 403, 200],
    guard: "settings",
  },
  READ("api+/market.summary.ts", "/api/market/summary"),
  {
    file: "api+/market.products.$productId.ts",
    method: "GET",
    path: "/api/market/products/NOPE-PERP",
    expect: [401, 404, 404, 404],
  },
  READ("api+/profiles.ts", "/api/profiles"),
  READ("api+/reports.ts", "/api/reports"),
  {
    file: "api+/reports.$id.download.ts",
    method: "GET",
    path: "/api/reports/none/download",
    expect: [401, 404, 404, 404],
  },
  {
    file: "api+/positions.$id.details.ts",
    method: "GET",
    path: "/api/positions/none/details",
    expect: [401, 404, 404, 404],
  },
  { file: "api+/trades.$id.details.ts", method: "GET", path: "/api/trades/none/details", expect: [401, 404, 404, 404] },
  READ("api+/exchanges.ts", "/api/exchanges"),
  { file: "api+/exchanges.$id.ts", method: "GET", path: "/api/exchanges/none", expect: [401, 404, 404, 404] },
  READ("api+/webhook-config.ts", "/api/webhook-config", true),
  READ("api+/credentials.ts", "/api/credentials", true),
  READ("api+/invites.ts", "/api/invites", true),
  READ("api+/users.ts", "/api/users", true),
  READ("api+/audit.ts", "/api/audit", true),
  READ("api+/notifications.ts", "/api/notifications", true),
  ADMIN_WRITE("api+/notifications.ts", "POST", "/api/notifications", { guard: "settings" }),
  READ("api+/security-settings.ts", "/api/security-settings", true),
  READ("api+/strategies.ts", "/api/strategies"),
  READ("api+/performance-charts.ts", "/api/performance-charts?range=all"),
  {
    file: "api+/replay.ts",
    method: "POST",
    path: "/api/replay",
    json: {},
    expect: [401, 400, 400, 400],
    guard: "trades",
  },
  READ("api+/candles.ts", "/api/candles?symbol=ETH-PERP&from=1700000000000"),
  READ("api+/strategies.stats.ts", "/api/strategies/stats"),
  { file: "api+/strategies.$id.ts", method: "GET", path: "/api/strategies/none", expect: [401, 404, 404, 404] },

  // JSON API: writes. Traders order and close; anyone stops; the rest is admin.
  TRADER_WRITE("api+/trades.ts", "POST", "/api/trades", { guard: "trades" }),
  {
    file: "api+/positions.$symbol.close.ts",
    method: "POST",
    path: "/api/positions/BTC-PERP/close",
    expect: [401, 403, 404, 404],
    guard: "jobs",
  },
  {
    file: "api+/positions.$id.ts",
    method: "PATCH",
    path: "/api/positions/none",
    json: { stopLoss: "1" },
    expect: [401, 403, 404, 404],
    guard: "trades",
  },
  { file: "api+/emergency-stop.ts", method: "POST", path: "/api/emergency-stop", expect: [401, 200, 200, 200] },
  {
    file: "api+/reset-emergency-stop.ts",
    method: "POST",
    path: "/api/reset-emergency-stop",
    expect: [401, 403, 403, 200],
    guard: "settings",
  },
  // The admin passes the permission check; the earlier rows left queued manual orders, so the
  // reset itself refuses (409: flatten first).
  {
    file: "api+/reset-stats.ts",
    method: "POST",
    path: "/api/reset-stats",
    expect: [401, 403, 403, 409],
    guard: "trades",
  },
  {
    file: "api+/positions.apply-rules.ts",
    method: "POST",
    path: "/api/positions/apply-rules",
    expect: [401, 403, 403, 200],
    guard: "settings",
  },
  ADMIN_WRITE("api+/profiles.ts", "POST", "/api/profiles", { guard: "profiles" }),
  ADMIN_WRITE("api+/profiles.transfer.ts", "POST", "/api/profiles/transfer", { guard: "profiles" }),
  {
    file: "api+/profiles.$profileId.ts",
    method: "DELETE",
    path: "/api/profiles/none",
    expect: [401, 403, 403, 400],
    guard: "profiles",
  },
  ADMIN_WRITE("api+/reports.ts", "POST", "/api/reports", { guard: "reports" }),
  ADMIN_WRITE("api+/trading-config.ts", "POST", "/api/trading-config", {
    json: {},
    expect: [401, 403, 403, 200],
    guard: "settings",
  }),
  {
    file: "api+/webhook-config.rotate.ts",
    method: "POST",
    path: "/api/webhook-config/rotate",
    expect: [401, 403, 403, 200],
    guard: "settings",
  },
  ADMIN_WRITE("api+/strategies.ts", "POST", "/api/strategies", { guard: "strategies" }),
  {
    file: "api+/strategies.$id.ts",
    method: "PUT",
    path: "/api/strategies/none",
    json: { enabled: false },
    expect: [401, 403, 403, 404],
    guard: "strategies",
  },
  {
    file: "api+/strategies.$id.ts",
    method: "DELETE",
    path: "/api/strategies/none",
    expect: [401, 403, 403, 404],
    guard: "strategies",
  },
  {
    file: "api+/strategies.$id.rotate.ts",
    method: "POST",
    path: "/api/strategies/none/rotate",
    expect: [401, 403, 403, 404],
    guard: "strategies",
  },
  ADMIN_WRITE("api+/exchanges.ts", "POST", "/api/exchanges", { guard: "settings" }),
  {
    file: "api+/exchanges.$id.ts",
    method: "DELETE",
    path: "/api/exchanges/none",
    expect: [401, 403, 403, 404],
    guard: "settings",
  },
  {
    file: "api+/exchanges.$id.test/route.ts",
    method: "POST",
    path: "/api/exchanges/none/test",
    expect: [401, 403, 403, 404],
  },
  { file: "api+/test.$exchange.ts", method: "GET", path: "/api/test/nope", expect: [401, 403, 403, 404] },
  ADMIN_WRITE("api+/credentials.save.ts", "POST", "/api/credentials/save", { guard: "settings" }),
  ADMIN_WRITE("api+/credentials.save-settings.ts", "POST", "/api/credentials/save-settings", {
    json: { sandbox: "maybe" },
    guard: "settings",
  }),
  ADMIN_WRITE("api+/invites.ts", "POST", "/api/invites", { guard: "settings" }),
  { file: "api+/invites.$code.ts", method: "DELETE", path: "/api/invites/none", expect: [401, 403, 403, 404] },
  ADMIN_WRITE("api+/users.$id.ts", "PATCH", "/api/users/none", { guard: "users" }),
  {
    file: "api+/users.$id.ts",
    method: "DELETE",
    path: "/api/users/none",
    expect: [401, 403, 403, 404],
    guard: "users",
  },
  ADMIN_WRITE("api+/security-settings.ts", "POST", "/api/security-settings", {
    json: { registrationOpen: "maybe" },
    guard: "settings",
  }),

  // Sign-in endpoints and the rest.
  { file: "api+/login.ts", method: "POST", path: "/api/login", json: {}, expect: [400, 400, 400, 400] },
  { file: "api+/register.ts", method: "POST", path: "/api/register", json: {}, expect: [400, 400, 400, 400] },
  { file: "api+/logout.ts", method: "GET", path: "/api/logout", expect: [405, 405, 405, 405] },
  READ("api+/orders.ts", "/api/orders"),
  TRADER_WRITE("api+/orders.cancel-all.ts", "POST", "/api/orders/cancel-all", { expect: [401, 403, 200, 200] }),
  TRADER_WRITE("api+/trades.$id.cancel.ts", "POST", "/api/trades/no-such-trade/cancel", {
    expect: [401, 403, 404, 404],
  }),
  READ("api+/drifts.ts", "/api/drifts"),
  READ("api+/heartbeats.ts", "/api/heartbeats"),
  {
    file: "api+/heartbeats.$key.ts",
    method: "PUT",
    path: "/api/heartbeats/default",
    json: { intervalSeconds: 3600 },
    expect: [401, 403, 403, 200],
    guard: "heartbeats",
  },
  TRADER_WRITE("api+/drifts.$id.resolve.ts", "POST", "/api/drifts/no-such-drift/resolve", {
    json: { action: "adopt" },
    expect: [401, 403, 404, 404],
  }),
  TRADER_WRITE("api+/positions.close-all.ts", "POST", "/api/positions/close-all", {
    expect: [401, 403, 200, 200],
    guard: "trades",
  }),
  { file: "api+/$.ts", method: "POST", path: "/api/does-not-exist", expect: [404, 404, 404, 404] },
];

const ROUTES_DIR = "app/routes";
function routeFiles(): string[] {
  const out: string[] = [];
  for (const folder of ["_app+", "api+"]) {
    for (const entry of readdirSync(`${ROUTES_DIR}/${folder}`, { withFileTypes: true })) {
      out.push(entry.isDirectory() ? `${folder}/${entry.name}/route.ts` : `${folder}/${entry.name}`);
    }
  }
  return out;
}

// The public product list an admin may read (POST /api/market/products/refresh) is the fake's.
useCoinbaseFake();
afterAll(() => setCatalog([]));

test("every page and /api route file is in the role matrix", () => {
  const covered = new Set(TABLE.map((r) => r.file));
  expect(routeFiles().filter((f) => !covered.has(f))).toEqual([]);
});

describe.each(testDialects())("role matrix on %s", (dialect) => {
  const app = freshApp(dialect);
  const cookies: Record<Who, string | undefined> = {
    anonymous: undefined,
    viewer: undefined,
    trader: undefined,
    admin: undefined,
  };
  beforeAll(async () => {
    cookies.admin = (await registerVia(app, "matrix_admin")).cookie;
    cookies.trader = (await registerVia(app, "matrix_trader", "secret123", "trader")).cookie;
    cookies.viewer = (await registerVia(app, "matrix_viewer", "secret123", "viewer")).cookie;
  });

  const WHO: Who[] = ["anonymous", "viewer", "trader", "admin"];
  test.each(
    TABLE.map(
      (row, i) => [`${row.method} ${row.path}${row.form?.intent ? ` (${row.form.intent})` : ""} #${i}`, row] as const,
    ),
  )("%s", async (_name, row) => {
    for (const [index, who] of WHO.entries()) {
      const expected = row.expect[index];
      const refused =
        expected === 401 || expected === 403 || (who === "anonymous" && expected === 302 && row.method !== "GET");
      const probe = row.guard ? PROBES[row.guard] : null;
      const before = refused && probe ? await probe(app) : null;
      const response = await app.fetch(row.path, {
        method: row.method,
        cookie: cookies[who],
        ...(row.form ? { form: row.form } : row.json !== undefined ? { json: row.json } : {}),
      });
      expect(
        response.status,
        `${row.method} ${row.path} as ${who}: ${await response
          .clone()
          .text()
          .then((t) => t.slice(0, 200))}`,
      ).toBe(expected);
      if (expected === 403 && row.path.startsWith("/api/")) {
        expect(((await response.json()) as { error: string }).error).toMatch(/not allowed|Admin access required/);
      }
      if (expected === 302 && who === "anonymous") expect(response.headers.get("location")).toMatch(/^\/login/);
      if (before !== null)
        expect(await probe!(app), `${row.method} ${row.path} as ${who} changed ${row.guard}`).toEqual(before);
    }
  });
});
