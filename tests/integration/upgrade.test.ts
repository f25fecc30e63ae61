// Upgrades (issue 22): a database migrated at any earlier release starts at HEAD. For each
// release in db/migrations/history.ts a fresh database gets exactly the migrations that release
// had (as it ran them), a row of real data, then HEAD's migrateToLatest: every missing
// migration applies, none twice, the data survives. On SQLite and MariaDB.
import { describe, expect, test } from "vitest";
import { migrateToLatest } from "#db/migrate.ts";
import { LAST_UNORDERED, MIGRATION_RELEASES } from "#db/migrations/history.ts";
import { migrations } from "#db/migrations/index.ts";
import { createTestDatabase, testDialects } from "#tests/setup/db.ts";

const released = MIGRATION_RELEASES.flat();

test("every registered migration is in the release history, once, and every new one sorts after all before it", () => {
  expect([...released].sort()).toEqual(Object.keys(migrations).sort());
  expect(new Set(released).size).toBe(released.length);
  const from = released.indexOf(LAST_UNORDERED) + 1;
  for (let i = from; i < released.length; i++) {
    const earlier = released.slice(0, i);
    expect(
      earlier.every((name) => name < released[i]!),
      `${released[i]} must sort after every earlier migration`,
    ).toBe(true);
  }
});

describe.each(testDialects())("upgrading a database from each earlier release, %s", (dialect) => {
  // The states worth building: each release's set (the last is HEAD itself).
  const states = MIGRATION_RELEASES.slice(0, -1).map((_, i) => MIGRATION_RELEASES.slice(0, i + 1).flat());

  test.each(states.map((set) => [set.at(-1)!, set] as const))("migrated up to %s, then to HEAD", async (_last, set) => {
    const database = await createTestDatabase(dialect, { migrate: false });
    try {
      const subset = Object.fromEntries(set.map((name) => [name, migrations[name]!]));
      expect(await migrateToLatest(database.db, subset)).toEqual([...set].sort());
      // A user of that release: one account.
      await database.db
        .insertInto("users")
        .values({
          id: "u-upgrade",
          username: "upgrader",
          username_key: "upgrader",
          password_hash: "x",
          role: "admin",
          created_at: Date.now(),
          updated_at: Date.now(),
        } as never)
        .execute();
      const missing = Object.keys(migrations)
        .filter((name) => !set.includes(name))
        .sort();
      expect(await migrateToLatest(database.db)).toEqual(missing);
      expect(await migrateToLatest(database.db)).toEqual([]);
      const user = await database.db
        .selectFrom("users")
        .select("username")
        .where("id", "=", "u-upgrade")
        .executeTakeFirst();
      expect(user?.username).toBe("upgrader");
    } finally {
      await database.cleanup();
    }
  });
});
