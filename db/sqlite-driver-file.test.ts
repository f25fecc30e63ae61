// The SQLite driver on a database file, the way the app runs it (WAL, a writer and a reader
// connection), with its connections traced: which connection prepared and ran which SQL.
// - plain SELECTs go to the reader and see what was committed; during an open write
//   transaction they see the last committed state (the reader's snapshot), never the
//   uncommitted one;
// - another PROCESS holding the write lock: a write waits for it asynchronously (the event
//   loop keeps running) and proceeds once it is released, or gives up with a clear error
//   after the (injected) busy timeout, storing nothing and leaving the driver usable;
// - the commit-busy path: COMMIT answering SQLITE_BUSY is retried until it succeeds or the
//   timeout passes (then rolled back). In WAL mode, which the app asks for, COMMIT does not
//   wait for readers, so that path cannot be reached there; it is reached in a rollback-
//   journal mode (journal_mode=DELETE: what SQLite keeps when WAL cannot be enabled, e.g. on
//   a file system without shared memory), where COMMIT needs an exclusive lock and another
//   connection's open read transaction holds a shared one. The tests below use that mode;
// - the statement cache: past its limit the least recently used statement is finalized,
//   and a query that needs it again prepares it again, with the right results.
import { Database as BunDatabase, type Statement } from "bun:sqlite";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Kysely, sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { SqliteDialect, isBusyError } from "./sqlite-driver.ts";

interface Schema {
  items: { id: number; name: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a connection did: statements prepared, finalized, and how often each SQL ran. */
interface Trace {
  prepared: string[];
  finalized: string[];
  runs: Map<string, number>;
  statements: Map<string, Statement[]>;
}

function trace(connection: BunDatabase): Trace {
  const t: Trace = { prepared: [], finalized: [], runs: new Map(), statements: new Map() };
  const prepare = connection.prepare.bind(connection);
  connection.prepare = ((text: string) => {
    const stmt = prepare(text);
    t.prepared.push(text);
    t.statements.set(text, [...(t.statements.get(text) ?? []), stmt]);
    const finalize = stmt.finalize.bind(stmt);
    stmt.finalize = () => {
      t.finalized.push(text);
      finalize();
    };
    for (const method of ["run", "all"] as const) {
      const original = (stmt[method] as (...a: unknown[]) => unknown).bind(stmt);
      (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        t.runs.set(text, (t.runs.get(text) ?? 0) + 1);
        return original(...args);
      };
    }
    return stmt;
  }) as typeof connection.prepare;
  return t;
}

const ran = (t: Trace, pattern: RegExp) =>
  [...t.runs.entries()].filter(([text]) => pattern.test(text)).reduce((n, [, c]) => n + c, 0);

interface Opened {
  db: Kysely<Schema>;
  writer: BunDatabase;
  reader: BunDatabase | null;
  writerTrace: Trace;
  readerTrace: Trace | null;
}

/** The connections as db/client.ts opens them, with the knobs the tests turn. */
function open(
  file: string,
  options: { journal?: "wal" | "delete"; reader?: boolean; busyTimeoutMs?: number; statementCacheSize?: number } = {},
): Opened {
  const writer = new BunDatabase(file, { create: true, strict: false });
  writer.exec(`PRAGMA journal_mode = ${options.journal ?? "wal"}`);
  writer.exec("PRAGMA synchronous = FULL");
  writer.exec("PRAGMA busy_timeout = 0");
  let reader: BunDatabase | null = null;
  if (options.reader !== false) {
    reader = new BunDatabase(file, { strict: false });
    reader.exec("PRAGMA busy_timeout = 1000");
  }
  const writerTrace = trace(writer);
  const readerTrace = reader ? trace(reader) : null;
  const db = new Kysely<Schema>({
    dialect: new SqliteDialect({
      writer,
      reader,
      busyTimeoutMs: options.busyTimeoutMs,
      statementCacheSize: options.statementCacheSize,
    }),
  });
  return { db, writer, reader, writerTrace, readerTrace };
}

/** Counts timer ticks: proof that the event loop ran while something was awaited. */
function ticker() {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 5);
  return {
    get ticks() {
      return ticks;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * Another process (a second bun) holding the write lock of `file` (BEGIN IMMEDIATE and an
 * uncommitted insert) until `release()`, which commits it.
 */
async function lockInAnotherProcess(file: string, insertId: number) {
  const script = `
    const { Database } = require("bun:sqlite");
    const db = new Database(${JSON.stringify(file)});
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("BEGIN IMMEDIATE");
    db.exec("INSERT INTO items (id, name) VALUES (${insertId}, 'other process')");
    process.stdout.write("locked\\n");
    process.stdin.once("data", () => { db.exec("COMMIT"); db.close(); process.stdout.write("released\\n"); process.exit(0); });
  `;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  const said = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => out.includes(word) && resolve();
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        check();
      });
      child.once("exit", (code) =>
        out.includes(word) ? resolve() : reject(new Error(`lock holder exited (${code}) before "${word}"`)),
      );
      check();
    });
  await said("locked");
  return {
    async release() {
      const released = said("released");
      child.stdin.write("go\n");
      await released;
    },
    kill: () => child.kill(),
  };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "perpdesk-driver-file-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
const opened: Opened[] = [];
async function fresh(options: Parameters<typeof open>[1] = {}) {
  const file = path.join(dir, `db-${++fileNo}.db`);
  const o = open(file, options);
  opened.push(o);
  await sql`create table items (id integer primary key, name text not null)`.execute(o.db);
  return { ...o, file };
}
afterEach(async () => {
  for (const o of opened.splice(0)) await o.db.destroy();
});

const names = async (db: Kysely<Schema>) =>
  (await db.selectFrom("items").select("name").orderBy("id").execute()).map((r) => r.name);

describe("reader connection (WAL)", () => {
  test("plain SELECTs run on the reader and see committed writes; writes and WITH-queries run on the writer", async () => {
    const { db, writerTrace, readerTrace } = await fresh();
    await db.insertInto("items").values({ id: 1, name: "one" }).execute();
    await db.updateTable("items").set({ name: "uno" }).where("id", "=", 1).execute();

    expect(await names(db)).toEqual(["uno"]);
    const select = /^select "name" from "items"/;
    expect(ran(readerTrace!, select)).toBe(1);
    expect(ran(writerTrace, select)).toBe(0);
    expect(ran(writerTrace, /^insert into "items"/)).toBe(1);
    expect(ran(writerTrace, /^update "items"/)).toBe(1);
    expect(ran(readerTrace!, /^(insert|update)/)).toBe(0);

    // Not a plain SELECT: the writer answers (a WITH could hide a write).
    const rows = await db
      .with("x", (q) => q.selectFrom("items").select("name"))
      .selectFrom("x")
      .selectAll()
      .execute();
    expect(rows).toEqual([{ name: "uno" }]);
    expect(ran(writerTrace, /^with "x"/)).toBe(1);
    expect(ran(readerTrace!, /^with "x"/)).toBe(0);
  });

  test("during an open write transaction a read sees the last committed state, the transaction its own writes; after COMMIT the reader sees them", async () => {
    const { db, readerTrace } = await fresh();
    await db.insertInto("items").values({ id: 1, name: "committed" }).execute();

    let written!: () => void;
    const isWritten = new Promise<void>((r) => (written = r));
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    let insideTx: string[] = [];
    const tx = db.transaction().execute(async (trx) => {
      await trx.updateTable("items").set({ name: "uncommitted" }).where("id", "=", 1).execute();
      await trx.insertInto("items").values({ id: 2, name: "new" }).execute();
      insideTx = (await trx.selectFrom("items").select("name").orderBy("id").execute()).map((r) => r.name);
      written();
      await finished;
    });
    await isWritten;
    const readsBefore = ran(readerTrace!, /^select/);
    expect(await names(db)).toEqual(["committed"]);
    expect(ran(readerTrace!, /^select/)).toBe(readsBefore + 1);
    expect(insideTx).toEqual(["uncommitted", "new"]);

    finish();
    await tx;
    expect(await names(db)).toEqual(["uncommitted", "new"]);
  });
});

describe("another process holding the write lock", () => {
  test("a write waits for it asynchronously (the event loop keeps running), then proceeds; reads answer meanwhile", async () => {
    const { db, file } = await fresh();
    const holder = await lockInAnotherProcess(file, 100);
    const clock = ticker();
    try {
      let settled = false;
      const write = db
        .transaction()
        .execute((trx) => trx.insertInto("items").values({ id: 1, name: "waited" }).execute())
        .finally(() => (settled = true));
      const single = db.insertInto("items").values({ id: 2, name: "single" }).execute();
      const ticksBefore = clock.ticks;
      await sleep(200);
      expect(settled).toBe(false);
      expect(clock.ticks - ticksBefore).toBeGreaterThan(10); // timers fired while the write waited
      const started = performance.now();
      expect(await names(db)).toEqual([]); // the reader is not blocked by the other process
      expect(performance.now() - started).toBeLessThan(100);
      await holder.release();
      await write;
      await single;
    } finally {
      clock.stop();
      holder.kill();
    }
    expect(await names(db)).toEqual(["waited", "single", "other process"]);
  });

  test("past the busy timeout the write gives up with a clear SQLITE_BUSY error, stores nothing, and the driver stays usable", async () => {
    const { db, file } = await fresh({ busyTimeoutMs: 150 });
    const holder = await lockInAnotherProcess(file, 100);
    const clock = ticker();
    let error: unknown;
    let waited = 0;
    try {
      const started = performance.now();
      error = await db
        .transaction()
        .execute((trx) => trx.insertInto("items").values({ id: 1, name: "never" }).execute())
        .catch((e: unknown) => e);
      waited = performance.now() - started;
      expect(clock.ticks).toBeGreaterThan(10);
      const single = await db
        .insertInto("items")
        .values({ id: 2, name: "never either" })
        .execute()
        .catch((e: unknown) => e);
      expect(isBusyError(single)).toBe(true);
    } finally {
      clock.stop();
      await holder.release();
      holder.kill();
    }
    expect(error).toBeInstanceOf(Error);
    expect(isBusyError(error)).toBe(true);
    expect((error as Error).message).toMatch(/stayed locked by another connection for 150 ms; gave up \(SQLITE_BUSY/);
    expect(waited).toBeGreaterThanOrEqual(140);
    expect(waited).toBeLessThan(2_000);
    expect(await names(db)).toEqual(["other process"]);
    // The process-local writer lock was released: the next transaction runs.
    await db.transaction().execute((trx) => trx.insertInto("items").values({ id: 3, name: "after" }).execute());
    expect(await names(db)).toEqual(["after", "other process"]);
  });
});

describe("COMMIT answering SQLITE_BUSY (rollback journal: a reader's shared lock blocks it)", () => {
  /** Another connection in an open read transaction: it holds a SHARED lock until COMMIT. */
  function openReadTransaction(file: string) {
    const other = new BunDatabase(file);
    other.exec("PRAGMA busy_timeout = 0");
    other.exec("BEGIN");
    other.query("select count(*) from items").all();
    return other;
  }

  test("the commit is retried asynchronously until the reader lets go, then the transaction's writes are stored", async () => {
    const { db, writer, writerTrace, file } = await fresh({ journal: "delete", reader: false });
    expect((writer.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("delete");
    const other = openReadTransaction(file);
    const clock = ticker();
    let bodyDone = false;
    let settled = false;
    try {
      const tx = db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto("items").values({ id: 1, name: "committed late" }).execute();
          bodyDone = true;
        })
        .finally(() => (settled = true));
      await sleep(200);
      expect(bodyDone).toBe(true);
      expect(settled).toBe(false); // stuck in COMMIT, not in the body
      expect(ran(writerTrace, /^commit$/)).toBeGreaterThan(5); // COMMIT was tried again and again
      expect(clock.ticks).toBeGreaterThan(10); // without freezing the event loop
      expect(writer.inTransaction).toBe(true);
      other.exec("COMMIT");
      await tx;
    } finally {
      clock.stop();
      other.close();
    }
    expect(writer.inTransaction).toBe(false);
    expect(await names(db)).toEqual(["committed late"]);
  });

  test("past the busy timeout the COMMIT fails with a clear error, the transaction is rolled back and the lock released", async () => {
    const { db, writer, writerTrace, file } = await fresh({ journal: "delete", reader: false, busyTimeoutMs: 150 });
    const other = openReadTransaction(file);
    let error: unknown;
    try {
      error = await db
        .transaction()
        .execute((trx) => trx.insertInto("items").values({ id: 1, name: "never" }).execute())
        .catch((e: unknown) => e);
    } finally {
      other.exec("COMMIT");
      other.close();
    }
    expect(isBusyError(error)).toBe(true);
    expect((error as Error).message).toMatch(/stayed locked by another connection for 150 ms/);
    expect(ran(writerTrace, /^commit$/)).toBeGreaterThan(5);
    expect(ran(writerTrace, /^rollback$/)).toBe(1);
    expect(writer.inTransaction).toBe(false);
    expect(await names(db)).toEqual([]);
    await db.transaction().execute((trx) => trx.insertInto("items").values({ id: 2, name: "next" }).execute());
    expect(await names(db)).toEqual(["next"]);
  });
});

describe("COMMIT failing for another reason", () => {
  test("a deferred foreign key violated at COMMIT fails with that error (not Kysely's rollback after it), and nothing is stored", async () => {
    const { db, writer } = await fresh();
    writer.exec("PRAGMA foreign_keys = ON");
    await sql`create table tags (id integer primary key, item_id integer not null references items (id) deferrable initially deferred)`.execute(
      db,
    );
    const error = await db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into tags (id, item_id) values (1, 42)`.execute(trx);
      })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("SQLITE_CONSTRAINT_FOREIGNKEY");
    expect(writer.inTransaction).toBe(false);
    expect((await sql<{ n: number }>`select count(*) as n from tags`.execute(db)).rows).toEqual([{ n: 0 }]);
    await db.transaction().execute((trx) => trx.insertInto("items").values({ id: 42, name: "next" }).execute());
    expect(await names(db)).toEqual(["next"]);
  });
});

describe("statement cache", () => {
  test("past its limit the least recently used statement is finalized; used again, it is prepared again and answers right", async () => {
    const { db, readerTrace } = await fresh({ statementCacheSize: 3 });
    await db
      .insertInto("items")
      .values(Array.from({ length: 6 }, (_, i) => ({ id: i + 1, name: `n${i + 1}` })))
      .execute();
    const t = readerTrace!;
    // Six different SELECT texts: a limit of n compiles to a different statement per n.
    const firstN = async (n: number) =>
      (await db.selectFrom("items").select("name").orderBy("id").limit(sql.lit(n)).execute()).map((r) => r.name);
    const textOf = (n: number) => t.prepared.find((p) => p.endsWith(`limit ${n}`))!;

    expect(await firstN(1)).toEqual(["n1"]);
    expect(await firstN(2)).toEqual(["n1", "n2"]);
    expect(await firstN(3)).toEqual(["n1", "n2", "n3"]);
    expect(t.finalized).toEqual([]);
    expect(await firstN(1)).toEqual(["n1"]); // a hit: no prepare, and "limit 1" is now the most recent
    expect(t.prepared.filter((p) => p === textOf(1))).toHaveLength(1);

    expect(await firstN(4)).toEqual(["n1", "n2", "n3", "n4"]); // evicts "limit 2", the least recently used
    expect(t.finalized).toEqual([textOf(2)]);
    expect(await firstN(5)).toHaveLength(5); // evicts "limit 3"
    expect(t.finalized).toEqual([textOf(2), textOf(3)]);
    const [evicted] = t.statements.get(textOf(2))!;
    expect(() => evicted!.all()).toThrow(/finalized/); // really finalized, not just forgotten

    // Needed again: prepared anew (a second Statement object), right results.
    expect(await firstN(2)).toEqual(["n1", "n2"]);
    expect(t.statements.get(textOf(2))).toHaveLength(2);
    expect(t.finalized).toEqual([textOf(2), textOf(3), textOf(1)]);
    expect(await firstN(3)).toEqual(["n1", "n2", "n3"]);
    expect(t.statements.get(textOf(3))).toHaveLength(2);

    // The writer's cache evicts the same way, in and out of a transaction.
    await db.transaction().execute(async (trx) => {
      for (let i = 7; i <= 12; i++) {
        await trx
          .insertInto("items")
          .values({ id: i, name: `n${i}` })
          .returning(sql.lit(i).as(`r${i}`))
          .execute();
      }
    });
    expect(
      await db
        .selectFrom("items")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow(),
    ).toEqual({ n: 12 });
  });

  test("the writer's evicted statements are finalized too, and destroy finalizes what is left", async () => {
    const file = path.join(dir, `db-${++fileNo}.db`);
    const o = open(file, { statementCacheSize: 2 });
    await sql`create table items (id integer primary key, name text not null)`.execute(o.db);
    for (let i = 1; i <= 4; i++) await sql`insert into items (id, name) values (${i}, ${`w${i}`})`.execute(o.db);
    for (let i = 1; i <= 4; i++) await sql`update items set name = ${`u${i}`} where id = ${i}`.execute(o.db);
    const updates = [...new Set(o.writerTrace.prepared.filter((p) => p.startsWith("update")))];
    expect(updates).toHaveLength(1); // one parameterized text, cached
    expect(o.writerTrace.finalized).toEqual(
      expect.arrayContaining(["create table items (id integer primary key, name text not null)"]),
    );
    expect(await names(o.db)).toEqual(["u1", "u2", "u3", "u4"]);
    expect(o.writerTrace.prepared.length - o.writerTrace.finalized.length).toBe(2); // the cache's limit
    await o.db.destroy();
    expect(o.writerTrace.finalized.sort()).toEqual(o.writerTrace.prepared.sort());
    expect(o.readerTrace!.finalized.sort()).toEqual(o.readerTrace!.prepared.sort());
    expect(o.readerTrace!.prepared.length).toBeGreaterThan(0);
  });
});
