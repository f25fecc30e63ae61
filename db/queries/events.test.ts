import { describe, expect, test } from "vitest";
import { LIVE_MESSAGE_TYPES, appendEvent, latestEventId, listEventsAfter, pruneEvents } from "#db/queries/events.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

describe.each(testDialects())("events repository on %s", (dialect) => {
  describe("append and tail", () => {
    const t = freshDatabase(dialect);

    test("latestEventId is 0 on an empty table", async () => {
      expect(await latestEventId(t.db)).toBe(0);
      expect(await listEventsAfter(t.db, 0)).toEqual([]);
    });

    test("appendEvent and listEventsAfter keep order, type, data and time", async () => {
      const before = Date.now();
      await appendEvent(t.db, "new_signal", { id: "sig-1", symbol: "BTC-PERP" });
      await appendEvent(t.db, "trade_update", { id: "t-1", status: "executed", nested: { qty: "0.5" } });
      await appendEvent(t.db, "dashboard_update", {});
      const after = Date.now();

      const events = await listEventsAfter(t.db, 0);
      expect(events.map((e) => e.type)).toEqual(["new_signal", "trade_update", "dashboard_update"]);
      expect(events.map((e) => e.data)).toEqual([
        { id: "sig-1", symbol: "BTC-PERP" },
        { id: "t-1", status: "executed", nested: { qty: "0.5" } },
        {},
      ]);
      const ids = events.map((e) => e.id);
      expect(ids.every((id) => typeof id === "number")).toBe(true);
      expect(ids[0]).toBeLessThan(ids[1]!);
      expect(ids[1]).toBeLessThan(ids[2]!);
      for (const event of events) {
        expect(typeof event.createdAt).toBe("number");
        expect(event.createdAt).toBeGreaterThanOrEqual(before);
        expect(event.createdAt).toBeLessThanOrEqual(after);
      }
    });

    test("latestEventId is the newest id, as a number", async () => {
      const events = await listEventsAfter(t.db, 0);
      expect(await latestEventId(t.db)).toBe(events.at(-1)!.id);
      await appendEvent(t.db, "system_status", { status: "online" });
      const latest = await latestEventId(t.db);
      expect(latest).toBeGreaterThan(events.at(-1)!.id);
      expect((await listEventsAfter(t.db, 0)).at(-1)).toMatchObject({ id: latest, type: "system_status" });
    });

    test("listEventsAfter returns only the events after the id, oldest first, up to the limit", async () => {
      const all = await listEventsAfter(t.db, 0);
      expect(all).toHaveLength(4);
      expect(await listEventsAfter(t.db, all[1]!.id)).toEqual(all.slice(2));
      expect(await listEventsAfter(t.db, all.at(-1)!.id)).toEqual([]);
      expect(await listEventsAfter(t.db, 0, 2)).toEqual(all.slice(0, 2));
      expect(await listEventsAfter(t.db, all[0]!.id, 1)).toEqual([all[1]]);
    });

    test("every live message type can be appended", async () => {
      const from = await latestEventId(t.db);
      for (const type of LIVE_MESSAGE_TYPES) await appendEvent(t.db, type, { type });
      const events = await listEventsAfter(t.db, from);
      expect(events.map((e) => e.type)).toEqual([...LIVE_MESSAGE_TYPES]);
      expect(events.map((e) => e.data.type)).toEqual([...LIVE_MESSAGE_TYPES]);
    });

    test("an event appended in a rolled-back transaction is never seen", async () => {
      const from = await latestEventId(t.db);
      await expect(
        t.db.transaction().execute(async (trx) => {
          await appendEvent(trx, "trade_update", { doomed: true });
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      expect(await listEventsAfter(t.db, from)).toEqual([]);
    });

    test("unreadable data reads as {}", async () => {
      await t.db
        .insertInto("events")
        .values({ type: "dashboard_update", data: "{oops", created_at: Date.now() })
        .execute();
      const last = (await listEventsAfter(t.db, 0, 1000)).at(-1)!;
      expect(last).toMatchObject({ type: "dashboard_update", data: {} });
    });
  });

  describe("default page size", () => {
    const t = freshDatabase(dialect);

    test("listEventsAfter returns at most 500 events by default", async () => {
      const now = Date.now();
      await t.db
        .insertInto("events")
        .values(
          Array.from({ length: 520 }, (_, i) => ({
            type: "dashboard_update",
            data: JSON.stringify({ i }),
            created_at: now,
          })),
        )
        .execute();
      const page = await listEventsAfter(t.db, 0);
      expect(page).toHaveLength(500);
      expect(page[0]!.data).toEqual({ i: 0 });
      expect(page.at(-1)!.data).toEqual({ i: 499 });
      expect(await listEventsAfter(t.db, page.at(-1)!.id)).toHaveLength(20);
    });
  });

  describe("pruneEvents", () => {
    const t = freshDatabase(dialect);

    test("deletes events strictly older than the cut-off and returns the count", async () => {
      for (let i = 0; i < 5; i++) await appendEvent(t.db, "dashboard_update", { i });
      const events = await listEventsAfter(t.db, 0);
      const cutoff = Date.now() - 60_000;
      const times = [cutoff - 10_000, cutoff - 1, cutoff, cutoff + 1, Date.now()];
      for (const [index, event] of events.entries()) {
        await t.db.updateTable("events").set({ created_at: times[index]! }).where("id", "=", event.id).execute();
      }

      expect(await pruneEvents(t.db, cutoff)).toBe(2);
      expect((await listEventsAfter(t.db, 0)).map((e) => e.data.i)).toEqual([2, 3, 4]);
      expect(await pruneEvents(t.db, cutoff)).toBe(0);
    });

    test("ids keep growing after every event has been pruned (tailers never miss new events)", async () => {
      const last = await latestEventId(t.db);
      expect(last).toBeGreaterThan(0);
      expect(await pruneEvents(t.db, Date.now() + 1)).toBe(3);
      expect(await latestEventId(t.db)).toBe(0);

      await appendEvent(t.db, "system_status", { after: "prune" });
      const fresh = await listEventsAfter(t.db, last);
      expect(fresh).toHaveLength(1);
      expect(fresh[0]!.id).toBeGreaterThan(last);
    });
  });
});
