// The guard: inside `db.transaction().execute(async (trx) => ...)`, a query on the outer
// `db` fails at once with "use trx, not db, inside a transaction". Without it, on an
// in-memory database (no reader connection) any such query, and on a file a write, waits for
// the writer lock its own transaction holds: a deadlock; on a file a SELECT quietly reads
// outside the transaction. Work in other async contexts while a transaction is open (another
// request, the worker loop) must not be refused: it waits or reads as before.
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Kysely, sql } from "kysely";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { type Database, openDatabase } from "./client.ts";
import { OUTER_DB_IN_TRANSACTION } from "./sqlite-driver.ts";

interface Schema {
  items: { id: number; name: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const refused = (e: unknown) => e instanceof Error && e.message === OUTER_DB_IN_TRANSACTION;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "perpdesk-driver-guard-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function openItems(kind: "file" | "memory"): Promise<Database & { items: Kysely<Schema> }> {
  const database = await openDatabase(
    kind === "file" ? `sqlite:${path.join(dir, `guard-${++n}.db`)}` : "sqlite::memory:",
  );
  const items = database.db as unknown as Kysely<Schema>;
  await sql`create table items (id integer primary key, name text not null)`.execute(items);
  return { ...database, items };
}

const names = async (db: Kysely<Schema>) =>
  (await db.selectFrom("items").select("name").orderBy("id").execute()).map((r) => r.name);

test("the message says what to do", () => {
  expect(OUTER_DB_IN_TRANSACTION).toContain("use trx, not db, inside a transaction");
});

describe.each(["file", "memory"] as const)("on a %s database", (kind) => {
  let database: Awaited<ReturnType<typeof openItems>>;
  let db: Kysely<Schema>;
  beforeEach(async () => {
    database = await openItems(kind);
    db = database.items;
  });
  afterEach(async () => {
    await database.destroy();
  });

  test("every kind of query on db inside the callback is refused at once; trx keeps working and commits", async () => {
    let elapsed = Number.POSITIVE_INFINITY;
    let errors: unknown[] = [];
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("items").values({ id: 1, name: "in trx" }).execute();
      const started = performance.now();
      errors = await Promise.all([
        db
          .selectFrom("items")
          .selectAll()
          .execute()
          .catch((e: unknown) => e),
        db
          .insertInto("items")
          .values({ id: 2, name: "on db" })
          .execute()
          .catch((e: unknown) => e),
        db
          .updateTable("items")
          .set({ name: "x" })
          .execute()
          .catch((e: unknown) => e),
        sql`select 1`.execute(db).catch((e: unknown) => e),
        db
          .transaction()
          .execute(async () => {})
          .catch((e: unknown) => e),
      ]);
      elapsed = performance.now() - started;
      await trx.insertInto("items").values({ id: 3, name: "still trx" }).execute();
    });
    expect(errors).toHaveLength(5);
    for (const error of errors) expect(refused(error)).toBe(true);
    expect(elapsed).toBeLessThan(100); // fails fast: no wait for the lock, no busy timeout
    expect(await names(db)).toEqual(["in trx", "still trx"]);
  });

  test("refused deep in a helper, after awaits and a timer; left uncaught it rolls the transaction back", async () => {
    const helper = async (handle: Kysely<Schema>) => {
      await sleep(5);
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
      return handle.selectFrom("items").selectAll().execute();
    };
    const error = await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("items").values({ id: 1, name: "rolled back" }).execute();
        await helper(trx); // the right handle: fine
        await helper(db); // the wrong one
      })
      .catch((e: unknown) => e);
    expect(refused(error)).toBe(true);
    expect(await names(db)).toEqual([]);
  });

  test("once the transaction has ended, work its callback started (a timer, a promise chain) may use db", async () => {
    let later!: Promise<string[]>;
    let timerResult!: Promise<string[]>;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("items").values({ id: 1, name: "one" }).execute();
      const committed = sleep(30);
      later = committed.then(() => names(db));
      timerResult = new Promise((resolve, reject) => setTimeout(() => names(db).then(resolve, reject), 30));
    });
    expect(await later).toEqual(["one"]);
    expect(await timerResult).toEqual(["one"]);
    expect(await names(db)).toEqual(["one"]); // the caller's own context was never marked
  });

  test("while a transaction is open, other async contexts are not refused: reads answer, writes wait for the commit, then run", async () => {
    await db.insertInto("items").values({ id: 1, name: "committed" }).execute();
    let written!: () => void;
    const isWritten = new Promise<void>((r) => (written = r));
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    // A request waiting for something the transaction ends (as the signal writer's callers
    // wait for their batch): it goes on in its own context, not the transaction's.
    let wake!: () => void;
    const woken = new Promise<void>((r) => (wake = r));
    let committed = false;
    let wokenWhileOpen = false;
    const tx = db.transaction().execute(async (trx) => {
      await trx.insertInto("items").values({ id: 2, name: "from trx" }).execute();
      written();
      await finished;
      wake();
      await sleep(10);
      wokenWhileOpen = !committed;
      committed = true;
    });
    await isWritten;

    // Another "request": its own async context, started while the transaction is open.
    const request = (async () => {
      await sleep(1);
      return names(db);
    })();
    const write = db
      .insertInto("items")
      .values({ id: 3, name: "concurrent" })
      .execute()
      .then(() => committed);
    const secondTx = db
      .transaction()
      .execute((t) => t.insertInto("items").values({ id: 4, name: "second trx" }).execute())
      .then(() => committed);
    const waiter = (async () => {
      await woken;
      return names(db);
    })();
    await sleep(50);
    finish();
    await tx;

    const all = ["committed", "from trx", "concurrent", "second trx"];
    // On a file the reader answers at once with the last committed state; in memory (no
    // reader) a read queues for the writer connection behind the writes queued before it.
    const expected = kind === "file" ? ["committed"] : all;
    expect(await request).toEqual(expected);
    expect(wokenWhileOpen).toBe(true);
    expect(await waiter).toEqual(expected);
    expect(await write).toBe(true); // ran after the transaction committed
    expect(await secondTx).toBe(true);
    expect(await names(db)).toEqual(all);
  });

  test("the mark hides no other AsyncLocalStorage store (the request origin the audit trail reads)", async () => {
    const origin = new AsyncLocalStorage<{ ip: string }>();
    const seen = await origin.run({ ip: "198.51.100.7" }, () =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto("items").values({ id: 1, name: "one" }).execute();
        await sleep(1);
        return origin.getStore()?.ip;
      }),
    );
    expect(seen).toBe("198.51.100.7");
  });

  test("a transaction on another database inside it: that database is free, this one is still refused", async () => {
    const other = await openItems(kind);
    try {
      let inner: unknown;
      await db.transaction().execute(async (trx) => {
        await trx.insertInto("items").values({ id: 1, name: "outer" }).execute();
        await other.items.transaction().execute(async (otherTrx) => {
          await otherTrx.insertInto("items").values({ id: 1, name: "inner" }).execute();
          inner = await db
            .selectFrom("items")
            .selectAll()
            .execute()
            .catch((e: unknown) => e);
          expect(await names(other.items).catch((e: unknown) => e)).toSatisfy(refused);
        });
        expect(await names(other.items)).toEqual(["inner"]); // other's transaction ended: free again
      });
      expect(refused(inner)).toBe(true);
      expect(await names(db)).toEqual(["outer"]);
    } finally {
      await other.destroy();
    }
  });
});
