import type { Kysely } from "kysely";
import { beforeAll, describe, expect, test } from "vitest";
import { type NewActivityLog, listActivityLogs, recordActivity } from "#db/queries/activity-logs.ts";
import type { DB } from "#db/schema.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Inserts `count` log rows in one statement (ids ascending in insertion order). */
async function bulkInsert(db: Kysely<DB>, count: number, entry: Partial<{ type: string; level: string }> = {}) {
  const now = Date.now();
  await db
    .insertInto("activity_logs")
    .values(
      Array.from({ length: count }, (_, i) => ({
        type: entry.type ?? "system",
        level: entry.level ?? "info",
        message: `bulk ${i}`,
        data: null,
        created_at: now,
      })),
    )
    .execute();
}

describe.each(testDialects())("activity logs on %s", (dialect) => {
  describe("recordActivity", () => {
    const t = freshDatabase(dialect);

    test("writes the log line and an activity_log event carrying the same content", async () => {
      const before = Date.now();
      await recordActivity(t.db, {
        type: "trade",
        level: "success",
        message: "Bought 1 BTC-PERP",
        data: { symbol: "BTC-PERP", qty: "1" },
      });
      const after = Date.now();

      const logs = await t.db.selectFrom("activity_logs").selectAll().execute();
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ type: "trade", level: "success", message: "Bought 1 BTC-PERP" });
      expect(JSON.parse(logs[0]!.data!)).toEqual({ symbol: "BTC-PERP", qty: "1" });
      expect(Number(logs[0]!.created_at)).toBeGreaterThanOrEqual(before);
      expect(Number(logs[0]!.created_at)).toBeLessThanOrEqual(after);

      const events = await t.db.selectFrom("events").selectAll().execute();
      expect(events).toHaveLength(1);
      expect(events[0]!.type).toBe("activity_log");
      expect(JSON.parse(events[0]!.data)).toEqual({
        type: "trade",
        level: "success",
        message: "Bought 1 BTC-PERP",
        data: { symbol: "BTC-PERP", qty: "1" },
      });
    });

    test("redacts secrets in data, in the log and in the event alike", async () => {
      const secrets = [
        "hunter2-pw",
        "api-secret-value",
        "tok-value",
        "plain-secret",
        "key-value",
        "phrase-value",
        "bearer-value",
      ];
      await recordActivity(t.db, {
        type: "auth",
        level: "warning",
        message: "redaction check",
        data: {
          username: "bob",
          password: secrets[0],
          apiSecret: secrets[1],
          token: secrets[2],
          secret: secrets[3],
          exchange: { name: "coinbase", api_key: secrets[4], credentials: [{ passphrase: secrets[5] }] },
          headers: { Authorization: secrets[6] },
        },
      });

      const log = (await listActivityLogs(t.db, { limit: 1 }))[0]!;
      expect(log.message).toBe("redaction check");
      expect(log.data).toEqual({
        username: "bob",
        password: "[redacted]",
        apiSecret: "[redacted]",
        token: "[redacted]",
        secret: "[redacted]",
        exchange: { name: "coinbase", api_key: "[redacted]", credentials: [{ passphrase: "[redacted]" }] },
        headers: { Authorization: "[redacted]" },
      });

      const stored = JSON.stringify(await t.db.selectFrom("activity_logs").select("data").execute());
      const events = JSON.stringify(await t.db.selectFrom("events").select("data").execute());
      for (const secret of secrets) {
        expect(stored).not.toContain(secret);
        expect(events).not.toContain(secret);
      }
      const event = await t.db.selectFrom("events").select("data").orderBy("id", "desc").executeTakeFirstOrThrow();
      expect(JSON.parse(event.data).data.password).toBe("[redacted]");
    });

    test("no data is stored as an empty object", async () => {
      await recordActivity(t.db, { type: "system", level: "info", message: "no data" });
      const [log] = await listActivityLogs(t.db, { limit: 1 });
      expect(log).toMatchObject({ message: "no data", data: {} });
      const row = await t.db
        .selectFrom("activity_logs")
        .select("data")
        .where("id", "=", log!.id)
        .executeTakeFirstOrThrow();
      expect(row.data).toBe("{}");
    });

    test("inside a transaction that rolls back, neither the log nor the event is kept", async () => {
      const logs = (await t.db.selectFrom("activity_logs").select("id").execute()).length;
      const events = (await t.db.selectFrom("events").select("id").execute()).length;
      await expect(
        t.db.transaction().execute(async (trx) => {
          await recordActivity(trx, { type: "system", level: "error", message: "doomed" });
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      expect(await t.db.selectFrom("activity_logs").select("id").execute()).toHaveLength(logs);
      expect(await t.db.selectFrom("events").select("id").execute()).toHaveLength(events);
    });
  });

  describe("listActivityLogs", () => {
    const t = freshDatabase(dialect);
    const entries: NewActivityLog[] = [
      { type: "trade", level: "success", message: "m1" },
      { type: "signal", level: "info", message: "m2" },
      { type: "trade", level: "error", message: "m3" },
      { type: "system", level: "warning", message: "m4" },
      { type: "trade", level: "success", message: "m5" },
      { type: "signal", level: "error", message: "m6" },
      { type: "trade", level: "info", message: "m7", data: { n: 7 } },
    ];

    beforeAll(async () => {
      for (const entry of entries) await recordActivity(t.db, entry);
    });

    test("returns the newest first, with ids, parsed data and ISO times", async () => {
      const logs = await listActivityLogs(t.db);
      expect(logs.map((l) => l.message)).toEqual(["m7", "m6", "m5", "m4", "m3", "m2", "m1"]);
      const ids = logs.map((l) => l.id);
      expect(ids.every((id) => typeof id === "number")).toBe(true);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);
      expect(logs[0]).toMatchObject({ type: "trade", level: "info", data: { n: 7 } });
      expect(logs[0]!.createdAt).toMatch(ISO);
    });

    test("filters by type, by level, and by both", async () => {
      expect((await listActivityLogs(t.db, { type: "trade" })).map((l) => l.message)).toEqual(["m7", "m5", "m3", "m1"]);
      expect((await listActivityLogs(t.db, { level: "error" })).map((l) => l.message)).toEqual(["m6", "m3"]);
      expect((await listActivityLogs(t.db, { type: "trade", level: "success" })).map((l) => l.message)).toEqual([
        "m5",
        "m1",
      ]);
      expect(await listActivityLogs(t.db, { type: "webhook" })).toEqual([]);
    });

    test("limit returns that many of the newest; below 1 means 1", async () => {
      expect((await listActivityLogs(t.db, { limit: 3 })).map((l) => l.message)).toEqual(["m7", "m6", "m5"]);
      expect((await listActivityLogs(t.db, { limit: 0 })).map((l) => l.message)).toEqual(["m7"]);
      expect((await listActivityLogs(t.db, { limit: -10 })).map((l) => l.message)).toEqual(["m7"]);
    });

    test("beforeId pages backwards without overlap", async () => {
      const page1 = await listActivityLogs(t.db, { limit: 3 });
      const page2 = await listActivityLogs(t.db, { limit: 3, beforeId: page1.at(-1)!.id });
      const page3 = await listActivityLogs(t.db, { limit: 3, beforeId: page2.at(-1)!.id });
      expect([...page1, ...page2, ...page3].map((l) => l.message)).toEqual(["m7", "m6", "m5", "m4", "m3", "m2", "m1"]);
      expect(await listActivityLogs(t.db, { beforeId: page3.at(-1)!.id })).toEqual([]);
      const filtered = await listActivityLogs(t.db, { type: "trade", beforeId: page1.at(-1)!.id });
      expect(filtered.map((l) => l.message)).toEqual(["m3", "m1"]);
    });

    test("an unknown level reads as info, and unreadable data as {}", async () => {
      await t.db
        .insertInto("activity_logs")
        .values({ type: "legacy", level: "debug", message: "odd row", data: "{broken", created_at: Date.now() })
        .execute();
      const [log] = await listActivityLogs(t.db, { type: "legacy" });
      expect(log).toMatchObject({ message: "odd row", level: "info", data: {} });
    });
  });

  describe("listActivityLogs limits", () => {
    const t = freshDatabase(dialect);

    test("the default limit is 20", async () => {
      await bulkInsert(t.db, 25);
      const logs = await listActivityLogs(t.db);
      expect(logs).toHaveLength(20);
      expect(logs[0]!.message).toBe("bulk 24");
    });

    test("the limit is clamped to 1000", async () => {
      await bulkInsert(t.db, 1000);
      expect(await listActivityLogs(t.db, { limit: 5000 })).toHaveLength(1000);
      expect(await listActivityLogs(t.db, { limit: 1000 })).toHaveLength(1000);
      expect(await listActivityLogs(t.db, { limit: 999 })).toHaveLength(999);
    });
  });
});
