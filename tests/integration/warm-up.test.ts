// The web process warms the build's caches once it listens (app/entry.server.tsx warmUp):
// the first dashboard then finds the statistics ledger built.
import { describe, expect, test } from "vitest";
import { loadBuild } from "#tests/setup/app.ts";
import { type TestDatabase, testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

type WarmUp = (context: {
  db: TestDatabase["db"];
}) => Promise<{ statistics: { hits: number; appends: number; rebuilds: number } }>;

describe.each(testDialects())("warm-up on %s", (dialect) => {
  const fresh = freshDatabase(dialect);

  test("builds the statistics ledger once; later calls find it", async () => {
    const warmUp = (await loadBuild()).entry.module as unknown as { warmUp: WarmUp };
    expect(typeof warmUp.warmUp).toBe("function");
    const first = await warmUp.warmUp({ db: fresh.db });
    expect(first.statistics).toEqual({ hits: 0, appends: 0, rebuilds: 1 });
    const second = await warmUp.warmUp({ db: fresh.db });
    expect(second.statistics).toEqual({ hits: 1, appends: 0, rebuilds: 1 });
  });
});
