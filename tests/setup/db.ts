// Test databases for both dialects. Each call makes a fresh, migrated database:
// SQLite in memory, and a new MariaDB/MySQL database (dropped afterwards).
//
// MariaDB is not optional: when it is unreachable the tests fail with a message saying
// so. For a quick local loop on SQLite alone set TEST_DIALECTS=sqlite (ignored under CI).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createConnection } from "mysql2/promise";
import { type Database, type Dialect, openDatabase } from "#db/client.ts";
import { migrateToLatest } from "#db/migrate.ts";

export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306";

export function testDialects(): Dialect[] {
  const requested = process.env.CI ? undefined : process.env.TEST_DIALECTS;
  if (!requested) return ["sqlite", "mysql"];
  return requested
    .split(",")
    .map((d) => d.trim())
    .filter((d): d is Dialect => d === "sqlite" || d === "mysql");
}

export interface TestDatabase extends Database {
  url: string;
  /** Closes the connection and drops the MySQL database. */
  cleanup(): Promise<void>;
}

async function mysqlAdmin() {
  try {
    return await createConnection({ uri: TEST_MYSQL_URL, connectTimeout: 5000 });
  } catch (error) {
    throw new Error(
      `MariaDB/MySQL is required for the MySQL half of the test suite and is unreachable at ${TEST_MYSQL_URL}: ` +
        `${(error as Error).message}. Start it (see README, "Tests") or set TEST_MYSQL_URL.`,
    );
  }
}

/** `file: true` puts SQLite in a temporary file, for tests that share it with another process. */
export async function createTestDatabase(
  dialect: Dialect,
  options: { migrate?: boolean; file?: boolean } = {},
): Promise<TestDatabase> {
  let url: string;
  let drop = async () => {};
  if (dialect === "mysql") {
    const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
    const admin = await mysqlAdmin();
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    await admin.end();
    url = `${TEST_MYSQL_URL.replace(/\/+$/, "")}/${name}`;
    drop = async () => {
      const conn = await mysqlAdmin();
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    };
  } else if (options.file) {
    const dir = mkdtempSync(path.join(tmpdir(), "perpdesk-db-"));
    url = `sqlite:${path.join(dir, "app.db")}`;
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    url = "sqlite::memory:";
  }
  const database = await openDatabase(url);
  if (options.migrate !== false) await migrateToLatest(database.db);
  return {
    ...database,
    url,
    async cleanup() {
      await database.destroy();
      await drop();
    },
  };
}

/** Drops MySQL databases left behind by killed test runs (older than an hour). */
export async function dropStaleTestDatabases(): Promise<void> {
  const conn = await mysqlAdmin();
  const [rows] = await conn.query("SHOW DATABASES LIKE 't\\_%'");
  const cutoff = Date.now() - 3_600_000;
  for (const row of rows as Record<string, string>[]) {
    const name = Object.values(row)[0]!;
    const stamp = parseInt(name.split("_")[1] ?? "", 36);
    if (Number.isFinite(stamp) && stamp < cutoff) await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  }
  await conn.end();
}
