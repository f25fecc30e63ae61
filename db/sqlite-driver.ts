// The Kysely driver for bun:sqlite. Two connections per process on a WAL file:
// - a reader: plain SELECTs outside a transaction run on it at once, never queued behind
//   this process's open write transaction and never blocked by another process's writer;
// - a writer: transactions (BEGIN IMMEDIATE) and single writes, one at a time per process.
// SQLite's own busy handler sleeps synchronously, which would freeze this process's only
// JavaScript thread (every HTTP request in flight) while another process holds the write
// lock. So busy_timeout is 0 and a busy lock is awaited here, asynchronously, with a short
// jittered back-off, up to `busyTimeoutMs`. Compiled statements are cached per connection
// (least recently used first out, finalized when evicted).
//
// Inside `db.transaction().execute(async (trx) => ...)` every query must go through `trx`.
// A query on the outer `db` there would either wait for the writer lock its own
// transaction holds (a deadlock: the transaction waits for the query, the query for the
// transaction) or read from the reader connection, outside the transaction, without its
// uncommitted writes. So the transaction's async context is marked (AsyncLocalStorage) and
// the outer `db` refuses at once while that transaction is open (decision 033). Work in
// other async contexts (another request, the worker loop) is not marked and is not refused.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Database as BunDatabase, Statement } from "bun:sqlite";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";

export interface SqliteDriverConfig {
  writer: BunDatabase;
  /** Absent for ":memory:" (a second connection would be another database). */
  reader?: BunDatabase | null;
  /** How long a write waits for another process's lock before failing (ms). */
  busyTimeoutMs?: number;
  /** Prepared statements kept per connection (least recently used evicted first). */
  statementCacheSize?: number;
}

const STATEMENT_CACHE_SIZE = 256;

class StatementCache {
  private readonly map = new Map<string, Statement>();
  constructor(
    private readonly db: BunDatabase,
    private readonly limit: number,
  ) {}

  get(sql: string): Statement {
    let stmt = this.map.get(sql);
    if (stmt) {
      // Refresh its place: the map's order is the eviction order.
      this.map.delete(sql);
      this.map.set(sql, stmt);
      return stmt;
    }
    stmt = this.db.prepare(sql);
    this.map.set(sql, stmt);
    if (this.map.size > this.limit) {
      const [oldest, old] = this.map.entries().next().value as [string, Statement];
      this.map.delete(oldest);
      old.finalize();
    }
    return stmt;
  }

  clear() {
    for (const stmt of this.map.values()) stmt.finalize();
    this.map.clear();
  }
}

export function isBusyError(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null;
  if (!e) return false;
  if (typeof e.code === "string" && (e.code.startsWith("SQLITE_BUSY") || e.code.startsWith("SQLITE_LOCKED")))
    return true;
  return typeof e.errno === "number" && ((e.errno & 0xff) === 5 || (e.errno & 0xff) === 6);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The lock stayed taken past the busy timeout: SQLite's error, said plainly (still SQLITE_BUSY). */
class BusyTimeoutError extends Error {
  readonly code: string;
  constructor(waitedMs: number, cause: unknown) {
    const code = String((cause as { code?: unknown }).code ?? "SQLITE_BUSY");
    super(
      `SQLite: the database stayed locked by another connection for ${waitedMs} ms; gave up (${code}: ${(cause as Error).message})`,
      { cause },
    );
    this.name = "BusyTimeoutError";
    this.code = code;
  }
}

/** One open transaction of one driver, marking the async context its callback runs in. */
interface TransactionMark {
  readonly driver: SqliteDriver;
  open: boolean;
  /** The mark this one was entered over (a transaction on another database around it). */
  readonly outer: TransactionMark | undefined;
}

const transactionContext = new AsyncLocalStorage<TransactionMark>();

export const OUTER_DB_IN_TRANSACTION =
  "SQLite: a query on `db` inside an open transaction of the same database: use trx, not db, inside a transaction " +
  "(on `db` it would wait for the lock its own transaction holds, or read outside the transaction)";

function run(cache: StatementCache, query: CompiledQuery): QueryResult<unknown> {
  const stmt = cache.get(query.sql);
  const parameters = query.parameters as never[];
  if (stmt.columnNames.length > 0) return { rows: stmt.all(...parameters) as unknown[] };
  const result = stmt.run(...parameters);
  return { insertId: BigInt(result.lastInsertRowid), numAffectedRows: BigInt(result.changes), rows: [] };
}

/** A FIFO lock: the writer connection serves one transaction (or write) at a time. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

const READ_ONLY = /^\s*select\b/i;

class Handle implements DatabaseConnection {
  release: (() => void) | null = null;
  mark: TransactionMark | null = null;
  constructor(private readonly driver: SqliteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.release) return this.driver.onWriter(query) as QueryResult<R>;
    if (this.driver.hasReader && READ_ONLY.test(query.sql)) return this.driver.onReader(query) as QueryResult<R>;
    // A single write outside a transaction: atomic on its own, so safe to retry when busy.
    const release = await this.driver.mutex.lock();
    try {
      return (await this.driver.retryBusy(() => this.driver.onWriter(query))) as QueryResult<R>;
    } finally {
      release();
    }
  }

  // biome-ignore lint/correctness/useYield: streaming is not used by the app
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("Streaming is not supported by this SQLite driver");
  }
}

class SqliteDriver implements Driver {
  readonly mutex = new Mutex();
  private readonly writerCache: StatementCache;
  private readonly readerCache: StatementCache | null;
  private readonly busyTimeoutMs: number;

  constructor(private readonly config: SqliteDriverConfig) {
    const cacheSize = config.statementCacheSize ?? STATEMENT_CACHE_SIZE;
    this.writerCache = new StatementCache(config.writer, cacheSize);
    this.readerCache = config.reader ? new StatementCache(config.reader, cacheSize) : null;
    this.busyTimeoutMs = config.busyTimeoutMs ?? 10_000;
  }

  get hasReader() {
    return this.readerCache !== null;
  }

  onWriter(query: CompiledQuery) {
    return run(this.writerCache, query);
  }

  onReader(query: CompiledQuery) {
    return run(this.readerCache!, query);
  }

  /** Runs `fn` again while SQLite says another connection holds the lock. */
  async retryBusy<T>(fn: () => T): Promise<T> {
    const deadline = Date.now() + this.busyTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return fn();
      } catch (error) {
        if (!isBusyError(error)) throw error;
        if (Date.now() >= deadline) throw new BusyTimeoutError(this.busyTimeoutMs, error);
        // About every millisecond: the other process's transactions are sub-millisecond and
        // may follow each other closely, so a longer back-off would starve this one.
        const base = Math.min(1, 0.25 * 2 ** attempt);
        await sleep(base / 2 + Math.random() * base);
      }
    }
  }

  async init() {}

  /** Transactions of this driver begun and not yet ended (the guard's fast path: none). */
  private openTransactions = 0;

  /** Kysely asks for a connection for every query on `db` (never for one on `trx`). */
  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.openTransactions > 0) {
      for (let mark = transactionContext.getStore(); mark; mark = mark.outer) {
        if (mark.open && mark.driver === this) throw new Error(OUTER_DB_IN_TRANSACTION);
      }
    }
    return new Handle(this);
  }

  beginTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Handle;
    // Synchronously, before anything is awaited: Kysely calls this from the async function
    // that then awaits it and runs the transaction's callback, so the mark entered here is
    // the callback's context (and everything it starts), not the context of the caller of
    // `db.transaction().execute()`.
    const mark: TransactionMark = { driver: this, open: true, outer: transactionContext.getStore() };
    transactionContext.enterWith(mark);
    handle.mark = mark;
    this.openTransactions++;
    return this.lockWriter(handle);
  }

  private async lockWriter(handle: Handle) {
    const release = await this.mutex.lock();
    try {
      // IMMEDIATE: the write lock is taken (and awaited) here, where a retry is safe, not
      // halfway through the transaction where a busy upgrade could not be retried.
      await this.retryBusy(() => this.onWriter(CompiledQuery.raw("begin immediate")));
    } catch (error) {
      release();
      this.closeMark(handle);
      throw error;
    }
    handle.release = release;
  }

  private closeMark(handle: Handle) {
    if (!handle.mark) return;
    handle.mark.open = false;
    handle.mark = null;
    this.openTransactions--;
  }

  async commitTransaction(connection: DatabaseConnection) {
    await this.endTransaction(connection as Handle, "commit");
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    await this.endTransaction(connection as Handle, "rollback");
  }

  private async endTransaction(handle: Handle, verb: "commit" | "rollback") {
    // A failed COMMIT was rolled back below; Kysely then asks for a rollback, which must not
    // replace the commit's error with "cannot rollback - no transaction is active".
    if (!handle.release) return;
    try {
      await this.retryBusy(() => this.onWriter(CompiledQuery.raw(verb)));
    } catch (error) {
      if (verb === "commit") {
        try {
          this.onWriter(CompiledQuery.raw("rollback"));
        } catch {
          // no transaction left to roll back
        }
      }
      throw error;
    } finally {
      handle.release?.();
      handle.release = null;
      this.closeMark(handle);
    }
  }

  async releaseConnection(connection: DatabaseConnection) {
    const handle = connection as Handle;
    // A transaction Kysely abandoned without commit or rollback: never keep the lock.
    if (handle.release) await this.endTransaction(handle, "rollback").catch(() => {});
  }

  async destroy() {
    this.writerCache.clear();
    this.readerCache?.clear();
    this.config.reader?.close();
    this.config.writer.close();
  }
}

export class SqliteDialect implements Dialect {
  constructor(private readonly config: SqliteDriverConfig) {}
  createDriver() {
    return new SqliteDriver(this.config);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}
