// Opens the database: bun:sqlite (embedded default, WAL) or a mysql2 pool, both behind Kysely.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { Kysely, MysqlDialect, sql } from "kysely";
import { createPool } from "mysql2";
import type { DB } from "./schema.ts";
import { SqliteDialect } from "./sqlite-driver.ts";

export type Dialect = "sqlite" | "mysql";

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** A description for logs and health: never includes a password. */
  label: string;
  destroy(): Promise<void>;
}

export function dialectOf(url: string): Dialect {
  return url.startsWith("mysql://") ? "mysql" : "sqlite";
}

/** Removes the password from a connection URL for display. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
  }
}

export async function openDatabase(url: string): Promise<Database> {
  return dialectOf(url) === "mysql" ? openMysql(url) : openSqlite(url);
}

async function openSqlite(url: string): Promise<Database> {
  const { Database: BunDatabase } = await import("bun:sqlite");
  const file = url.replace(/^sqlite:(\/\/)?/, "") || ":memory:";
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  const writer = new BunDatabase(file, { create: true, strict: false });
  writer.exec("PRAGMA journal_mode = WAL");
  // The database holds sessions, encrypted keys and the account's history: owner-only
  // (issue 10), whatever the umask made of it (the -wal and -shm files follow the database's mode).
  if (file !== ":memory:") restrictMode(path.resolve(file));
  writer.exec("PRAGMA synchronous = FULL");
  // No synchronous sleeping in SQLite's busy handler: the driver waits for locks asynchronously.
  writer.exec("PRAGMA busy_timeout = 0");
  writer.exec("PRAGMA foreign_keys = ON");
  let reader: InstanceType<typeof BunDatabase> | null = null;
  if (file !== ":memory:") {
    reader = new BunDatabase(file, { strict: false });
    reader.exec("PRAGMA busy_timeout = 1000");
    reader.exec("PRAGMA foreign_keys = ON");
  }
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ writer, reader, busyTimeoutMs: 10_000 }) });
  return {
    db,
    dialect: "sqlite",
    label: `sqlite:${file}`,
    async destroy() {
      await db.destroy();
    },
  };
}

async function openMysql(url: string): Promise<Database> {
  const pool = createPool({
    uri: url,
    connectionLimit: 10,
    timezone: "Z",
    charset: "utf8mb4",
    // DECIMAL stays a string (money never becomes a float); BIGINT ids and epoch
    // milliseconds fit in a double and come back as numbers, like SQLite's.
    decimalNumbers: false,
    supportBigNumbers: false,
    connectTimeout: 10_000,
  });
  pool.on("connection", (conn) => {
    conn.query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    conn.query("SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION'");
  });
  const db = new Kysely<DB>({ dialect: new MysqlDialect({ pool }) });
  // Fail now, with a clear message, rather than on the first request.
  await sql`select 1`.execute(db);
  return {
    db,
    dialect: "mysql",
    label: redactUrl(url),
    async destroy() {
      await db.destroy();
    },
  };
}

/** The database file and its WAL files 0600; a failure (a file system without modes) is not fatal. */
function restrictMode(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if (existsSync(f)) chmodSync(f, 0o600);
    } catch {
      // not ours to change (read-only or foreign file system): leave it
    }
  }
}
