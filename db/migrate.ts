// Runs every pending migration. Imported by the web server and the worker at start, and
// runnable alone: `npm run db:migrate`.
import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { migrations } from "./migrations/index.ts";

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Applies every registered migration not yet applied, in name order. Unordered on purpose:
 * three migrations landed with names sorting before one already released (2026_11_26_0100
 * and _0200 after _0300), so a database migrated at that release has a later name applied
 * and earlier ones pending; Kysely's default refuses that as "corrupted migrations" and the
 * app could not start after an upgrade. They are independent, so applying the missing ones is
 * right. New migrations must still sort last (db/migrations/history.ts, checked by the tests).
 */
export async function migrateToLatest(db: Kysely<any>, set: Record<string, Migration> = migrations): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: set === migrations ? provider : { getMigrations: async () => set },
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  const applied = (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
  const failed = (results ?? []).find((r) => r.status === "Error");
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? "unknown error");
    throw new Error(`Migration ${failed?.migrationName ?? ""} failed: ${reason}`.replace("  ", " "));
  }
  return applied;
}

if (import.meta.main) {
  const { loadConfigOrExit } = await import("../app/core/env.ts");
  const { openDatabase } = await import("./client.ts");
  const config = loadConfigOrExit();
  const database = await openDatabase(config.databaseUrl);
  try {
    const applied = await migrateToLatest(database.db);
    console.log(
      applied.length ? `Applied ${applied.join(", ")} on ${database.label}` : `Up to date: ${database.label}`,
    );
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  } finally {
    await database.destroy();
  }
}
