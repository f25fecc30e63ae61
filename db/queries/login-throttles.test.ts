import { describe, expect, test, vi } from "vitest";
import { clearThrottle, getThrottle, recordLoginFailure } from "#db/queries/login-throttles.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

const RESET_AFTER = 60 * 60_000;
/** Three failures free, then 1 s doubling. */
const policy = (failures: number) => (failures < 3 ? 0 : 1000 * 2 ** (failures - 3));

describe.each(testDialects())("login throttles on %s", (dialect) => {
  const fresh = freshDatabase(dialect);

  /** One failure, in its own transaction as the callers do. */
  const fail = (key: string, lockFor = policy, resetAfterMs = RESET_AFTER) =>
    fresh.db.transaction().execute((trx) => recordLoginFailure(trx, key, lockFor, resetAfterMs));
  const backdate = (key: string, ms: number) =>
    fresh.db.updateTable("login_throttles").set({ updated_at: ms }).where("key", "=", key).execute();

  test("getThrottle of an unknown key is null", async () => {
    expect(await getThrottle(fresh.db, "user:nobody")).toBeNull();
  });

  test("failures count up, and the lock is what the policy gives for the new count", async () => {
    const key = "user:alice";
    const lockFor = vi.fn(policy);

    const first = await fail(key, lockFor);
    expect(first).toMatchObject({ key, failures: 1, lockedUntil: null });
    const second = await fail(key, lockFor);
    expect(second).toMatchObject({ failures: 2, lockedUntil: null });

    const before = Date.now();
    const third = await fail(key, lockFor);
    const after = Date.now();
    expect(third.failures).toBe(3);
    expect(third.lockedUntil).toBeGreaterThanOrEqual(before + 1000);
    expect(third.lockedUntil).toBeLessThanOrEqual(after + 1000);
    expect(third.lockedUntil).toBe(third.updatedAt + 1000);

    const fourth = await fail(key, lockFor);
    expect(fourth.failures).toBe(4);
    expect(fourth.lockedUntil).toBe(fourth.updatedAt + 2000);

    expect(lockFor.mock.calls.map(([n]) => n)).toEqual([1, 2, 3, 4]);
    expect(await getThrottle(fresh.db, key)).toEqual(fourth);
  });

  test("the stored lock is replaced by the policy's answer, including no lock", async () => {
    const key = "user:lock-once";
    const onlyAtTwo = (failures: number) => (failures === 2 ? 5000 : 0);
    await fail(key, onlyAtTwo);
    expect((await fail(key, onlyAtTwo)).lockedUntil).not.toBeNull();
    const third = await fail(key, onlyAtTwo);
    expect(third).toMatchObject({ failures: 3, lockedUntil: null });
    expect((await getThrottle(fresh.db, key))?.lockedUntil).toBeNull();
  });

  test("keys are counted separately", async () => {
    await fail("user:carol");
    await fail("user:carol");
    await fail("ip:10.0.0.1");
    expect((await getThrottle(fresh.db, "user:carol"))?.failures).toBe(2);
    expect((await getThrottle(fresh.db, "ip:10.0.0.1"))?.failures).toBe(1);
    expect(await getThrottle(fresh.db, "user:Carol")).toBeNull();
  });

  test("failures older than resetAfterMs are forgotten", async () => {
    const key = "user:dave";
    for (let i = 0; i < 4; i++) await fail(key);
    expect((await getThrottle(fresh.db, key))?.lockedUntil).not.toBeNull();

    await backdate(key, Date.now() - RESET_AFTER - 1);
    const next = await fail(key);
    expect(next).toMatchObject({ failures: 1, lockedUntil: null });
    expect(await getThrottle(fresh.db, key)).toEqual(next);
  });

  test("failures within resetAfterMs keep counting", async () => {
    const key = "user:erin";
    await fail(key);
    await fail(key);
    await backdate(key, Date.now() - RESET_AFTER + 60_000);
    expect((await fail(key)).failures).toBe(3);
  });

  test("clearThrottle deletes the counter; clearing an unknown key is harmless", async () => {
    const key = "user:frank";
    await fail(key);
    await fail(key);
    await fail("user:grace");
    await clearThrottle(fresh.db, key);
    expect(await getThrottle(fresh.db, key)).toBeNull();
    expect((await getThrottle(fresh.db, "user:grace"))?.failures).toBe(1);
    await expect(clearThrottle(fresh.db, "user:never-seen")).resolves.toBeUndefined();
    expect((await fail(key)).failures).toBe(1);
  });

  test("a failed transaction leaves the counter untouched", async () => {
    const key = "user:henry";
    await fail(key);
    await expect(
      fresh.db.transaction().execute(async (trx) => {
        await recordLoginFailure(trx, key, policy, RESET_AFTER);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect((await getThrottle(fresh.db, key))?.failures).toBe(1);
  });

  test("concurrent failures on one key are all counted", async () => {
    // Parallel wrong-password requests must not share one count: each one is a guess.
    const key = "user:parallel";
    await Promise.all(Array.from({ length: 6 }, () => fail(key)));
    expect((await getThrottle(fresh.db, key))?.failures).toBe(6);
  });
});
