// The SQLite driver: a write waits for another connection's lock without freezing the
// event loop, reads never wait for a writer, and a lock held too long fails with SQLITE_BUSY.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Database, openDatabase } from "./client.ts";
import { migrateToLatest } from "./migrate.ts";
import { isBusyError } from "./sqlite-driver.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("sqlite driver", () => {
  let dir: string;
  let a: Database; // stands for the worker process
  let b: Database; // stands for the web process
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "perpdesk-driver-"));
    const url = `sqlite:${path.join(dir, "app.db")}`;
    a = await openDatabase(url);
    await migrateToLatest(a.db);
    b = await openDatabase(url);
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const setting = (key: string) => ({ key, value: "1", updated_at: Date.now() });
  /** A transaction on `database` that has written `key` and stays open until release(); `done` is its end. */
  const holdOpen = async (database: Database, key: string) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const isStarted = new Promise<void>((r) => (started = r));
    const done = database.db.transaction().execute(async (trx) => {
      await trx.insertInto("settings").values(setting(key)).execute();
      started();
      await held;
    });
    await isStarted;
    return { release, done };
  };

  test("while another connection holds the write lock: reads answer at once, a write waits asynchronously, then commits", async () => {
    const holder = await holdOpen(a, "held");

    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    try {
      const readStart = performance.now();
      await b.db.selectFrom("settings").select("key").execute();
      expect(performance.now() - readStart).toBeLessThan(100);

      const write = b.db.insertInto("settings").values(setting("waited")).execute();
      const ticksBefore = ticks;
      await sleep(150);
      // The event loop kept running while the write waited for the lock.
      expect(ticks - ticksBefore).toBeGreaterThan(5);
      holder.release();
      await holder.done;
      await write;
    } finally {
      clearInterval(ticker);
    }
    const keys = (await b.db.selectFrom("settings").select("key").where("key", "in", ["held", "waited"]).execute())
      .map((r) => r.key)
      .sort();
    expect(keys).toEqual(["held", "waited"]);
  });

  test("inside one process, a read is not queued behind this process's own open transaction", async () => {
    const tx = await holdOpen(b, "in-tx");
    const rows = await b.db.selectFrom("settings").select("key").where("key", "=", "in-tx").execute();
    expect(rows).toEqual([]); // not committed yet, and the read did not wait for it
    tx.release();
    await tx.done;
    expect(await b.db.selectFrom("settings").select("key").where("key", "=", "in-tx").execute()).toEqual([
      { key: "in-tx" },
    ]);
  });

  test("a lock held past the busy timeout fails the waiting write with SQLITE_BUSY, and nothing of it is stored", async () => {
    const url = `sqlite:${path.join(dir, "app.db")}`;
    const { SqliteDialect } = await import("./sqlite-driver.ts");
    const { Database: BunDatabase } = await import("bun:sqlite");
    const { Kysely } = await import("kysely");
    const writer = new BunDatabase(url.slice("sqlite:".length));
    writer.exec("PRAGMA busy_timeout = 0");
    const impatient = new Kysely<import("./schema.ts").DB>({
      dialect: new SqliteDialect({ writer, busyTimeoutMs: 100 }),
    });
    const holder = await holdOpen(a, "holder-2");
    const error = await impatient
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("settings").values(setting("never")).execute();
      })
      .catch((e: unknown) => e);
    holder.release();
    await holder.done;
    expect(isBusyError(error)).toBe(true);
    expect(await b.db.selectFrom("settings").select("key").where("key", "=", "never").execute()).toEqual([]);
    await impatient.destroy();
  });
});
