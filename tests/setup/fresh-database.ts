// The one test-database lifecycle for a describe block: a fresh migrated database created
// before its tests and dropped after them. `ref.db` / `ref.database` exist once beforeAll ran.
import type { Kysely } from "kysely";
import { afterAll, beforeAll } from "vitest";
import type { Dialect } from "#db/client.ts";
import type { DB } from "#db/schema.ts";
import { type TestDatabase, createTestDatabase } from "./db.ts";

export interface FreshDatabase {
  db: Kysely<DB>;
  database: TestDatabase;
}

export function freshDatabase(dialect: Dialect, options: Parameters<typeof createTestDatabase>[1] = {}): FreshDatabase {
  const ref = {} as FreshDatabase;
  beforeAll(async () => {
    ref.database = await createTestDatabase(dialect, options);
    ref.db = ref.database.db;
  });
  afterAll(async () => {
    await ref.database?.cleanup();
  });
  return ref;
}
