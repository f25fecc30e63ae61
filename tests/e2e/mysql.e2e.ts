// The same app over MariaDB/MySQL (DATABASE_URL=mysql://...): a second instance on its own
// port and a fresh database, created here and dropped at the end. MariaDB is required:
// when it is unreachable this test fails, it does not skip.
import { randomBytes } from "node:crypto";
import { type Connection, createConnection } from "mysql2/promise";
import { describe, expect, test } from "vitest";
import {
  type Page,
  type PageProblems,
  expectedStatusText,
  fetchHealth,
  maxToastsSeen,
  screenshot,
  waitForHydration,
  useSuite,
} from "./utils.ts";

// The same server the integration tests use (README, "Tests").
const MYSQL_URL = (process.env.TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306").replace(/\/+$/, "");
const DATABASE = `e2e_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;

let admin: Connection | undefined;
let created = false;
let baseUrl: string;
let page: Page;
let problems: PageProblems;

useSuite(
  {
    label: "mysql",
    port: 5102,
    before: async () => {
      try {
        admin = await createConnection({ uri: MYSQL_URL, connectTimeout: 5000 });
      } catch (error) {
        throw new Error(
          `MariaDB/MySQL is required for the MariaDB browser test and is unreachable at ${MYSQL_URL}: ${(error as Error).message}`,
        );
      }
      await dropStaleDatabases(admin);
      await admin.query(`CREATE DATABASE \`${DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      created = true;
      return { DATABASE_URL: `${MYSQL_URL}/${DATABASE}` };
    },
    after: async () => {
      if (admin) {
        if (created) await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
        await admin.end();
      }
    },
  },
  (suite) => ({ baseUrl, page, problems } = suite),
);

/** Databases left behind by killed runs (named e2e_<base-36 time>_..., older than an hour). */
async function dropStaleDatabases(conn: Connection) {
  const [rows] = await conn.query("SHOW DATABASES LIKE 'e2e\\_%'");
  for (const row of rows as Record<string, string>[]) {
    const name = Object.values(row)[0]!;
    const stamp = parseInt(name.split("_")[1] ?? "", 36);
    if (Number.isFinite(stamp) && stamp < Date.now() - 3_600_000)
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  }
}

describe("foundation over MariaDB", () => {
  test("10. register, the dashboard, and /api/health's database is MySQL/MariaDB online", async () => {
    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.getByRole("heading", { level: 1, name: "Sign in", exact: true }).waitFor();
    await waitForHydration(page, problems);

    await page.getByRole("link", { name: "Create account", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Create account", exact: true }).waitFor();
    await page.getByLabel("Username", { exact: true }).fill("maria_admin");
    await page.getByLabel("Password", { exact: true }).fill("maria-secret-1");
    await page.getByLabel("Confirm password", { exact: true }).fill("maria-secret-1");
    await page.getByRole("button", { name: "Create account", exact: true }).click();
    await page.waitForURL((url) => url.pathname === "/dashboard", { timeout: 15_000 });
    await page.getByRole("heading", { level: 1, name: "Dashboard", exact: true }).waitFor();
    expect((await page.getByTestId("header-username").innerText()).trim()).toBe("maria_admin");
    const current = page.getByTestId("sidebar").locator('[aria-current="page"]');
    expect(await current.allInnerTexts()).toEqual(["Dashboard"]);

    // The account lives in the MariaDB database, as the first (admin) account.
    const me = await page.request.get("/api/user");
    expect(await me.json()).toMatchObject({ username: "maria_admin", role: "admin" });
    const [rows] = await admin!.query(`SELECT username, role FROM \`${DATABASE}\`.users`);
    expect(rows).toEqual([expect.objectContaining({ username: "maria_admin", role: "admin" })]);

    // Health: the database component names MySQL/MariaDB and is online.
    const health = await fetchHealth(baseUrl, page);
    const database = health.systemStatus.find((entry) => entry.component === "database");
    expect(database).toBeDefined();
    expect(database!.status).toBe("online");
    expect(database!.message).toContain("MySQL/MariaDB");

    // The sidebar's status block agrees with it.
    const { title, detail } = expectedStatusText(health);
    const block = (await page.getByTestId("system-status").innerText()).replace(/\s+/g, " ");
    expect(block).toContain(title);
    if (detail) expect(block).toContain(detail);

    await screenshot(page, "10-mysql-dashboard");
    expect(await maxToastsSeen(page)).toBeLessThanOrEqual(1);
    expect(problems.errors).toEqual([]);
  });
});
