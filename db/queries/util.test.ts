// transactionWithLockRetry: an InnoDB deadlock victim or lock-wait timeout is run again;
// anything else, or the same error on SQLite, is not.
import { describe, expect, test } from "vitest";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";
import { transactionWithLockRetry } from "./util.ts";

const lockError = (errno: number) =>
  Object.assign(new Error(errno === 1213 ? "Deadlock found when trying to get lock" : "Lock wait timeout exceeded"), {
    errno,
  });

describe.each(testDialects())("transactionWithLockRetry on %s", (dialect) => {
  const fresh = freshDatabase(dialect);

  test.each([1213, 1205])(
    "errno %s: retried on MySQL (the failed attempt's writes rolled back), thrown on SQLite",
    async (errno) => {
      await fresh.db.deleteFrom("settings").where("key", "like", "retry-test%").execute();
      let attempts = 0;
      const run = transactionWithLockRetry(fresh.db, async (trx) => {
        attempts++;
        await trx
          .insertInto("settings")
          .values({ key: `retry-test-${attempts}`, value: "1", updated_at: Date.now() })
          .execute();
        if (attempts === 1) throw lockError(errno);
        return "done";
      });
      if (dialect === "mysql") {
        await expect(run).resolves.toBe("done");
        expect(attempts).toBe(2);
        const keys = (
          await fresh.db.selectFrom("settings").select("key").where("key", "like", "retry-test%").execute()
        ).map((r) => r.key);
        expect(keys).toEqual(["retry-test-2"]);
      } else {
        await expect(run).rejects.toThrow(/Deadlock|Lock wait/);
        expect(attempts).toBe(1);
      }
    },
  );

  test("other errors are not retried, and a lock error that persists ends after the attempts", async () => {
    let attempts = 0;
    await expect(
      transactionWithLockRetry(fresh.db, async () => {
        attempts++;
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(attempts).toBe(1);
    attempts = 0;
    await expect(
      transactionWithLockRetry(
        fresh.db,
        async () => {
          attempts++;
          throw lockError(1213);
        },
        3,
      ),
    ).rejects.toThrow(/Deadlock/);
    expect(attempts).toBe(dialect === "mysql" ? 3 : 1);
  });
});
