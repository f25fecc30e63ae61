// Who may do what (issue 10): every page, page action and /api route of the app, for an
// anonymous visitor, a viewer, a trader and an admin, generated from ONE table. A request a
// role may make but with an empty or invalid body answers 400 (past the permission check,
// nothing done); a refused one answers 401/403 and changes nothing. A meta-test fails when a
// route file is missing from the table, so a new route cannot slip through unguarded.
import { readdirSync } from "node:fs";
import { sql } from "kysely";
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

/** A page's form post (as without JavaScript). */
const ACTION = (
  file: string,
  path: string,
  form: Record<string, string>,
  expect: Row["expect"],
  guard?: Row["guard"],
): Row => ({ file, method: "POST", path, form, expect, guard });
/** Any other call, with an optional JSON body. */
const CALL = (
  file: string,
  method: string,
  path: string,
  expect: Row["expect"],
  guard?: Row["guard"],
  json?: unknown,
): Row => ({ file, method, path, expect, guard, json });

const MANUAL_ORDER = {
  intent: "place-order",
  symbol: "BTC-PERP",
  side: "buy",
  orderType: "market",
  amountType: "quantity",
  quantity: "0.001",
  leverage: "1",
  marginType: "cross",
};

// What the dangerous calls would change, read straight from the database.
type Table = "trades" | "jobs" | "settings" | "profiles" | "reports" | "users" | "strategies" | "strategy_heartbeats";
const count = (table: Table) => (app: TestApp) =>
  app.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst()
    .then((r) => Number(r?.n));
/** The rows of a table, in a stable order, as one string to compare before and after. */
const rows = (table: Table, columns: string[] | "*", orderBy: string) => async (app: TestApp) => {
  const list = columns === "*" ? sql.raw("*") : sql.join(columns.map((c) => sql.ref(c)));
  const result = await sql`select ${list} from ${sql.table(table)} order by ${sql.ref(orderBy)}`.execute(
    app.database.db,
  );
  return JSON.stringify(result.rows);
};
const PROBES = {
  trades: count("trades"),
  jobs: count("jobs"),
  settings: rows("settings", ["key", "value"], "key"),
  profiles: rows("profiles", ["id", "active"], "id"),
  reports: count("reports"),
  users: rows("users", ["id", "role", "disabled"], "id"),
  strategies: rows("strategies", "*", "id"),
  heartbeats: rows("strategy_heartbeats", "*", "strategy_key"),
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
  ACTION("_app+/replay.tsx", "/replay", { from: "" }, [302, 400, 400, 400], "trades"),
  CALL("_app+/positions_.$id.chart.tsx", "GET", "/positions/no-such-position/chart", [302, 404, 404, 404]),
  // One signal's latency timeline rendered on the server (the dashboard's no-JavaScript link): every role reads it.
  CALL("_app+/signals_.$id.tsx", "GET", "/signals/no-such-signal", [302, 404, 404, 404]),
  ACTION("_app+/strategies.tsx", "/strategies", { intent: "nonsense" }, [302, 403, 403, 400], "strategies"),
  CALL("_app+/$.tsx", "GET", "/no-such-page/deeper", [302, 404, 404, 404]),
  CALL("_app+/_layout.tsx", "GET", "/dashboard", [302, 200, 200, 200]),

  // Page actions (form posts, as without JavaScript).
  ACTION("_app+/dashboard.tsx", "/dashboard", { intent: "place-order" }, [302, 403, 400, 400], "trades"),
  ACTION("_app+/_index.tsx", "/?index", { intent: "place-order" }, [302, 403, 400, 400], "trades"),
  ACTION("_app+/manual-trading.tsx", "/manual-trading", MANUAL_ORDER, [302, 403, 302, 302], "trades"),
  ACTION("_app+/dashboard.tsx", "/dashboard", { intent: "reset-emergency-stop" }, [302, 403, 403, 302], "settings"),
  ACTION("_app+/dashboard.tsx", "/dashboard", { intent: "emergency-stop" }, [302, 302, 302, 302]),
  ACTION("_app+/dashboard.tsx", "/dashboard", { intent: "reset-emergency-stop" }, [302, 403, 403, 302], "settings"),
  ACTION("_app+/dashboard.tsx", "/dashboard", { intent: "nonsense" }, [302, 400, 400, 400]),
  // Unconfirmed: answers the confirmation page (decision 041), queues nothing.
  ACTION("_app+/dashboard.tsx", "/dashboard", { intent: "flatten" }, [302, 403, 200, 200], "jobs"),
  ACTION("_app+/positions.tsx", "/positions", { intent: "close", symbol: "BTC-PERP" }, [302, 403, 302, 302], "jobs"),
  // Unconfirmed: answers the confirmation page (decision 041), queues nothing.
  ACTION("_app+/positions.tsx", "/positions", { intent: "flatten" }, [302, 403, 200, 200], "jobs"),
  ACTION("_app+/positions.tsx", "/positions", { intent: "cancel-all" }, [302, 403, 302, 302], "jobs"),
  ACTION(
    "_app+/positions.tsx",
    "/positions",
    { intent: "edit", id: "nope", stopLoss: "1" },
    [302, 403, 404, 404],
    "trades",
  ),
  ACTION(
    "_app+/positions.tsx",
    "/positions",
    { intent: "close-part", symbol: "BTC-PERP", amount: "50", unit: "percent" },
    [302, 403, 302, 302],
    "jobs",
  ),
  ACTION("_app+/positions.tsx", "/positions", { intent: "cancel-order", id: "nope" }, [302, 403, 302, 302], "jobs"),
  ACTION("_app+/profiles.tsx", "/profiles", { intent: "create", name: "" }, [302, 403, 403, 400], "profiles"),
  ACTION("_app+/profiles.tsx", "/profiles", { intent: "transfer" }, [302, 403, 403, 400], "profiles"),
  ACTION("_app+/reports.tsx", "/reports", { type: "nope" }, [302, 403, 403, 400], "reports"),
  ACTION("_app+/exchanges.tsx", "/exchanges", { intent: "add" }, [302, 403, 403, 400], "settings"),
  ACTION("_app+/api-settings.tsx", "/api-settings", { intent: "save" }, [302, 403, 403, 400], "settings"),
  ACTION("_app+/trading-rules.tsx", "/trading-rules", { takeProfitLevels: "nope" }, [302, 403, 403, 400], "settings"),
  ACTION("_app+/webhook.tsx", "/webhook", { intent: "nonsense" }, [302, 403, 403, 400], "settings"),
  ACTION(
    "_app+/notifications.tsx",
    "/notifications",
    { intent: "general", rateLimitPerMinute: "nope" },
    [302, 403, 403, 400],
    "settings",
  ),
  // Everyone manages their own two-factor authentication; a wrong code changes nothing.
  ACTION("_app+/account.tsx", "/account", { intent: "confirm", code: "123456" }, [302, 400, 400, 400], "users"),
  ACTION("_app+/users.tsx", "/users", { intent: "settings", registrationOpen: "on" }, [302, 403, 403, 302], "settings"),
  ACTION("_app+/users.tsx", "/users", { intent: "settings" }, [302, 403, 403, 302], "settings"),
  ACTION("_app+/users.tsx", "/users", { intent: "nonsense" }, [302, 403, 403, 400], "users"),

  // JSON API: reads.
  READ("api+/user.ts", "/api/user"),
  CALL("api+/health.ts", "GET", "/api/health", [200, 200, 200, 200]),
  READ("api+/performance-stats.ts", "/api/performance-stats"),
  READ("api+/closed-trades-pnl.ts", "/api/closed-trades-pnl"),
  READ("api+/signals.ts", "/api/signals"),
  READ("api+/signals.latency.ts", "/api/signals/latency"),
  CALL("api+/signals.$id.ts", "GET", "/api/signals/no-such-signal", [401, 404, 404, 404]),
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
  CALL("api+/market.products.refresh.ts", "POST", "/api/market/products/refresh", [401, 403, 403, 200], "settings"),
  READ("api+/market.summary.ts", "/api/market/summary"),
  CALL("api+/market.products.$productId.ts", "GET", "/api/market/products/NOPE-PERP", [401, 404, 404, 404]),
  READ("api+/profiles.ts", "/api/profiles"),
  READ("api+/reports.ts", "/api/reports"),
  CALL("api+/reports.$id.download.ts", "GET", "/api/reports/none/download", [401, 404, 404, 404]),
  CALL("api+/positions.$id.details.ts", "GET", "/api/positions/none/details", [401, 404, 404, 404]),
  CALL("api+/trades.$id.details.ts", "GET", "/api/trades/none/details", [401, 404, 404, 404]),
  READ("api+/exchanges.ts", "/api/exchanges"),
  CALL("api+/exchanges.$id.ts", "GET", "/api/exchanges/none", [401, 404, 404, 404]),
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
  CALL("api+/replay.ts", "POST", "/api/replay", [401, 400, 400, 400], "trades", {}),
  READ("api+/candles.ts", "/api/candles?symbol=ETH-PERP&from=1700000000000"),
  READ("api+/strategies.stats.ts", "/api/strategies/stats"),
  CALL("api+/strategies.$id.ts", "GET", "/api/strategies/none", [401, 404, 404, 404]),

  // JSON API: writes. Traders order and close; anyone stops; the rest is admin.
  TRADER_WRITE("api+/trades.ts", "POST", "/api/trades", { guard: "trades" }),
  CALL("api+/positions.$symbol.close.ts", "POST", "/api/positions/BTC-PERP/close", [401, 403, 404, 404], "jobs"),
  CALL("api+/positions.$id.ts", "PATCH", "/api/positions/none", [401, 403, 404, 404], "trades", { stopLoss: "1" }),
  CALL("api+/emergency-stop.ts", "POST", "/api/emergency-stop", [401, 200, 200, 200]),
  CALL("api+/reset-emergency-stop.ts", "POST", "/api/reset-emergency-stop", [401, 403, 403, 200], "settings"),
  // The admin passes the permission check; the earlier rows left queued manual orders, so the
  // reset itself refuses (409: flatten first).
  CALL("api+/reset-stats.ts", "POST", "/api/reset-stats", [401, 403, 403, 409], "trades"),
  CALL("api+/positions.apply-rules.ts", "POST", "/api/positions/apply-rules", [401, 403, 403, 200], "settings"),
  ADMIN_WRITE("api+/profiles.ts", "POST", "/api/profiles", { guard: "profiles" }),
  ADMIN_WRITE("api+/profiles.transfer.ts", "POST", "/api/profiles/transfer", { guard: "profiles" }),
  CALL("api+/profiles.$profileId.ts", "DELETE", "/api/profiles/none", [401, 403, 403, 400], "profiles"),
  ADMIN_WRITE("api+/reports.ts", "POST", "/api/reports", { guard: "reports" }),
  ADMIN_WRITE("api+/trading-config.ts", "POST", "/api/trading-config", {
    json: {},
    expect: [401, 403, 403, 200],
    guard: "settings",
  }),
  CALL("api+/webhook-config.rotate.ts", "POST", "/api/webhook-config/rotate", [401, 403, 403, 200], "settings"),
  ADMIN_WRITE("api+/strategies.ts", "POST", "/api/strategies", { guard: "strategies" }),
  CALL("api+/strategies.$id.ts", "PUT", "/api/strategies/none", [401, 403, 403, 404], "strategies", { enabled: false }),
  CALL("api+/strategies.$id.ts", "DELETE", "/api/strategies/none", [401, 403, 403, 404], "strategies"),
  CALL("api+/strategies.$id.rotate.ts", "POST", "/api/strategies/none/rotate", [401, 403, 403, 404], "strategies"),
  ADMIN_WRITE("api+/exchanges.ts", "POST", "/api/exchanges", { guard: "settings" }),
  CALL("api+/exchanges.$id.ts", "DELETE", "/api/exchanges/none", [401, 403, 403, 404], "settings"),
  CALL("api+/exchanges.$id.test/route.ts", "POST", "/api/exchanges/none/test", [401, 403, 403, 404]),
  CALL("api+/test.$exchange.ts", "GET", "/api/test/nope", [401, 403, 403, 404]),
  ADMIN_WRITE("api+/credentials.save.ts", "POST", "/api/credentials/save", { guard: "settings" }),
  ADMIN_WRITE("api+/credentials.save-settings.ts", "POST", "/api/credentials/save-settings", {
    json: { sandbox: "maybe" },
    guard: "settings",
  }),
  ADMIN_WRITE("api+/invites.ts", "POST", "/api/invites", { guard: "settings" }),
  CALL("api+/invites.$code.ts", "DELETE", "/api/invites/none", [401, 403, 403, 404]),
  ADMIN_WRITE("api+/users.$id.ts", "PATCH", "/api/users/none", { guard: "users" }),
  CALL("api+/users.$id.ts", "DELETE", "/api/users/none", [401, 403, 403, 404], "users"),
  ADMIN_WRITE("api+/security-settings.ts", "POST", "/api/security-settings", {
    json: { registrationOpen: "maybe" },
    guard: "settings",
  }),

  // Sign-in endpoints and the rest.
  CALL("api+/login.ts", "POST", "/api/login", [400, 400, 400, 400], undefined, {}),
  CALL("api+/register.ts", "POST", "/api/register", [400, 400, 400, 400], undefined, {}),
  CALL("api+/logout.ts", "GET", "/api/logout", [405, 405, 405, 405]),
  READ("api+/orders.ts", "/api/orders"),
  TRADER_WRITE("api+/orders.cancel-all.ts", "POST", "/api/orders/cancel-all", { expect: [401, 403, 200, 200] }),
  TRADER_WRITE("api+/trades.$id.cancel.ts", "POST", "/api/trades/no-such-trade/cancel", {
    expect: [401, 403, 404, 404],
  }),
  READ("api+/drifts.ts", "/api/drifts"),
  READ("api+/heartbeats.ts", "/api/heartbeats"),
  CALL("api+/heartbeats.$key.ts", "PUT", "/api/heartbeats/default", [401, 403, 403, 200], "heartbeats", {
    intervalSeconds: 3600,
  }),
  TRADER_WRITE("api+/drifts.$id.resolve.ts", "POST", "/api/drifts/no-such-drift/resolve", {
    json: { action: "adopt" },
    expect: [401, 403, 404, 404],
  }),
  TRADER_WRITE("api+/positions.close-all.ts", "POST", "/api/positions/close-all", {
    expect: [401, 403, 200, 200],
    guard: "trades",
  }),
  CALL("api+/$.ts", "POST", "/api/does-not-exist", [404, 404, 404, 404]),
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
