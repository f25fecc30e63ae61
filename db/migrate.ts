// Runs every pending migration. Imported by the web server and the worker at start, and
// runnable alone: `npm run db:migrate`.
import { type Kysely, type MigrationProvider, Migrator } from "kysely";
import { migrations } from "./migrations/index.ts";

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
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
