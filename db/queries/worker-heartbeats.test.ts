import { describe, expect, test } from "vitest";
import { listHeartbeats, pruneHeartbeats, writeHeartbeat } from "#db/queries/worker-heartbeats.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(testDialects())("worker heartbeats on %s", (dialect) => {
  const fresh = freshDatabase(dialect);

  const setLastBeat = (workerId: string, ms: number) =>
    fresh.db.updateTable("worker_heartbeats").set({ last_beat_at: ms }).where("worker_id", "=", workerId).execute();

  test("listHeartbeats is empty before any worker has beaten", async () => {
    expect(await listHeartbeats(fresh.db)).toEqual([]);
  });

  test("writeHeartbeat inserts a row for a new worker", async () => {
    const startedAt = Date.now() - 5000;
    const before = Date.now();
    const written = { workerId: "w1", hostname: "host-a", pid: 101, startedAt, status: "running", info: { jobs: 0 } };
    await writeHeartbeat(fresh.db, written);
    const after = Date.now();

    const beats = await listHeartbeats(fresh.db);
    expect(beats).toHaveLength(1);
    expect(beats[0]).toMatchObject(written);
    expect(beats[0]!.lastBeatAt).toBeGreaterThanOrEqual(before);
    expect(beats[0]!.lastBeatAt).toBeLessThanOrEqual(after);
  });

  test("a second beat of the same worker updates its one row", async () => {
    await setLastBeat("w1", Date.now() - 10_000);
    const restartedAt = Date.now() - 1000;
    const before = Date.now();
    const written = {
      workerId: "w1",
      hostname: "host-a",
      pid: 202,
      startedAt: restartedAt,
      status: "stopping",
      info: { jobs: 3, nested: { queue: ["a", "b"] } },
    };
    await writeHeartbeat(fresh.db, written);

    const rows = await fresh.db.selectFrom("worker_heartbeats").selectAll().where("worker_id", "=", "w1").execute();
    expect(rows).toHaveLength(1);
    const [beat] = await listHeartbeats(fresh.db);
    expect(beat).toMatchObject(written);
    expect(beat!.lastBeatAt).toBeGreaterThanOrEqual(before);
  });

  test("info defaults to {} and the hostname is cut to 255 characters", async () => {
    await writeHeartbeat(fresh.db, {
      workerId: "w2",
      hostname: "h".repeat(300),
      pid: 7,
      startedAt: Date.now(),
      status: "running",
    });
    const beat = (await listHeartbeats(fresh.db)).find((b) => b.workerId === "w2");
    expect(beat?.info).toEqual({});
    expect(beat?.hostname).toBe("h".repeat(255));
    const row = await fresh.db
      .selectFrom("worker_heartbeats")
      .select("info")
      .where("worker_id", "=", "w2")
      .executeTakeFirstOrThrow();
    expect(row.info).toBe("{}");
  });

  test("listHeartbeats returns the freshest beat first", async () => {
    const now = Date.now();
    await writeHeartbeat(fresh.db, { workerId: "w3", hostname: "host-c", pid: 3, startedAt: now, status: "running" });
    await setLastBeat("w1", now - 3000);
    await setLastBeat("w2", now - 1000);
    await setLastBeat("w3", now - 2000);
    expect((await listHeartbeats(fresh.db)).map((b) => b.workerId)).toEqual(["w2", "w3", "w1"]);

    await writeHeartbeat(fresh.db, { workerId: "w1", hostname: "host-a", pid: 202, startedAt: now, status: "running" });
    expect((await listHeartbeats(fresh.db)).map((b) => b.workerId)).toEqual(["w1", "w2", "w3"]);
  });

  test("pruneHeartbeats deletes beats strictly older than the cut-off and returns the count", async () => {
    const cutoff = Date.now() - HOUR;
    await setLastBeat("w1", cutoff - 1);
    await setLastBeat("w2", cutoff);
    await setLastBeat("w3", cutoff + 1);
    expect(await pruneHeartbeats(fresh.db, cutoff)).toBe(1);
    expect((await listHeartbeats(fresh.db)).map((b) => b.workerId).sort()).toEqual(["w2", "w3"]);
    expect(await pruneHeartbeats(fresh.db, cutoff)).toBe(0);
  });

  test("pruneHeartbeats forgets workers silent for more than a day by default", async () => {
    const now = Date.now();
    await setLastBeat("w2", now - DAY - 60_000);
    await setLastBeat("w3", now - DAY + 60_000);
    expect(await pruneHeartbeats(fresh.db)).toBe(1);
    expect((await listHeartbeats(fresh.db)).map((b) => b.workerId)).toEqual(["w3"]);
  });
});
