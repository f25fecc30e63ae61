// Who may reach what: every page and /api route that exists, for anonymous, user and admin.
import { describe, expect, test } from "vitest";
import { expectJsonAccess, freshApp, registeredAccounts } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

const USER_PAGES = [
  "/",
  "/dashboard",
  "/positions",
  "/exchanges",
  "/manual-trading",
  "/history",
  "/trade-history",
  "/trades",
  "/signals",
  "/logs",
  "/profiles",
  "/market-data",
  "/reports",
  "/coming-soon",
];
const ADMIN_PAGES = ["/api-settings", "/webhook", "/trading-rules"];

describe.each(testDialects())("access matrix on %s", (dialect) => {
  const app = freshApp(dialect);
  const cookies = registeredAccounts(app, { admin: "matrix_admin", user: "matrix_user" });

  test.each([...USER_PAGES, ...ADMIN_PAGES, "/no-such-page"])(
    "anonymous %s → login, coming back after",
    async (path) => {
      const response = await app.fetch(path);
      expect(response.status).toBe(302);
      const location = response.headers.get("location")!;
      expect(location.startsWith("/login")).toBe(true);
      if (path !== "/") expect(new URL(location, "http://x").searchParams.get("redirectTo")).toBe(path);
    },
  );

  test.each(USER_PAGES)("user and admin can open %s", async (path) => {
    for (const cookie of [cookies.user, cookies.admin]) {
      const response = await app.fetch(path, { cookie });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/text\/html/);
    }
  });

  test.each(ADMIN_PAGES)("%s is 403 for a user, 200 for the admin", async (path) => {
    const denied = await app.fetch(path, { cookie: cookies.user });
    expect(denied.status).toBe(403);
    expect(await denied.text()).toContain("Access denied");
    expect((await app.fetch(path, { cookie: cookies.admin })).status).toBe(200);
  });

  test("an unknown page is 404 '404 Page Not Found' when logged in", async () => {
    const response = await app.fetch("/no-such-page/deeper", { cookie: cookies.user });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("404 Page Not Found");
  });

  test("login and register pages send a logged-in user to the app", async () => {
    for (const path of ["/login", "/register"]) {
      const response = await app.fetch(path, { cookie: cookies.user });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/dashboard");
    }
  });

  // [method, path, anonymous status, user status, admin status]
  const API: [string, string, number, number, number][] = [
    ["GET", "/api/user", 401, 200, 200],
    ["GET", "/api/health", 200, 200, 200],
    ["GET", "/api/login", 405, 405, 405],
    ["GET", "/api/register", 405, 405, 405],
    ["GET", "/api/logout", 405, 405, 405],
    ["POST", "/api/logout", 401, 200, 200],
    ["GET", "/api/performance-stats", 401, 200, 200],
    ["GET", "/api/closed-trades-pnl", 401, 200, 200],
    ["GET", "/api/signals", 401, 200, 200],
    ["GET", "/api/trades", 401, 200, 200],
    ["GET", "/api/logs", 401, 200, 200],
    ["GET", "/api/positions", 401, 200, 200],
    ["GET", "/api/balance", 401, 200, 200],
    ["GET", "/api/dashboard/stats", 401, 200, 200],
    ["GET", "/api/trading-config", 401, 200, 200],
    ["GET", "/api/webhook-config", 401, 403, 200],
    ["POST", "/api/webhook-config/rotate", 401, 403, 200],
    ["POST", "/api/trading-config", 401, 403, 200],
    ["GET", "/api/market/products", 401, 200, 200],
    ["GET", "/api/market/summary", 401, 200, 200],
    ["GET", "/api/market/products/NOPE-PERP", 401, 404, 404],
    ["GET", "/api/profiles", 401, 200, 200],
    ["POST", "/api/profiles/transfer", 401, 403, 400],
    ["GET", "/api/reports", 401, 200, 200],
    ["GET", "/api/reports/none/download", 401, 404, 404],
    ["GET", "/api/does-not-exist", 404, 404, 404],
    ["POST", "/api/does-not-exist", 404, 404, 404],
    ["DELETE", "/api/nested/does/not/exist", 404, 404, 404],
  ];

  test.each(API)("%s %s answers JSON %i / %i / %i (anonymous / user / admin)", async (...row) => {
    // Logging out ends the session: use a fresh one for that call.
    await expectJsonAccess(app, row, cookies, async (who, cookie) =>
      row[0] === "POST" && row[1] === "/api/logout"
        ? (
            await app.fetch("/api/login", {
              method: "POST",
              json: { username: `matrix_${who}`, password: "secret123" },
            })
          ).headers
            .getSetCookie()[0]!
            .split(";")[0]!
        : cookie,
    );
  });
});
