// When the signal+job transaction cannot commit, the webhook answers 503 (TradingView
// resends on 5xx) and leaves nothing half-written: no signal without its job.
import { sql } from "kysely";
import { describe, expect, test } from "vitest";
import { signalWriterFor } from "#app/services/signal-writer.server.ts";
import { getWebhookSecret, handleWebhook } from "#app/services/webhook.server.ts";
import { openDatabase } from "#db/client.ts";
import { waitFor } from "#tests/setup/app.ts";
import { createTestDatabase, testDialects } from "#tests/setup/db.ts";
import { allowConsoleError } from "#tests/setup/setup-test-env.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

const APP_SECRET = "failure-test-secret-0123456789abcdef0123";

describe.each(testDialects())("webhook commit failure on %s", (dialect) => {
  const fresh = freshDatabase(dialect);

  test("a failing job insert rolls the signal back and answers 503", async () => {
    allowConsoleError(); // the handler reports the failed commit on stderr
    const secret = await getWebhookSecret(fresh.db, APP_SECRET);
    const send = () =>
      handleWebhook(fresh.db, {
        rawBody: JSON.stringify({ secret, action: "buy", symbol: "BTC-PERP", quantity: "0.01", order_type: "market" }),
        token: null,
        appSecret: APP_SECRET,
        ip: "127.0.0.1",
      });
    await sql`alter table jobs rename to jobs_away`.execute(fresh.db);
    try {
      const outcome = await send();
      expect(outcome).toEqual({
        status: 503,
        body: { success: false, error: "Signal could not be stored, please retry" },
      });
      const signals = await fresh.db.selectFrom("signals").select("id").execute();
      expect(signals).toEqual([]);
    } finally {
      await sql`alter table jobs_away rename to jobs`.execute(fresh.db);
    }
    // TradingView's resend, once the database is healthy again, is stored (not a "duplicate").
    const retry = await send();
    expect(retry).toMatchObject({ status: 200, body: { success: true, status: "queued" } });
  });

  test("with 4,000 writes already waiting, a webhook is refused at once with 503 and nothing is stored", async () => {
    // A file database (SQLite) so a second connection can hold the write lock; on MySQL the
    // holder locks the activity log table. Either way the writer's first batch stalls and
    // the 4,000 writes behind it stay queued while the webhook arrives.
    const db = dialect === "sqlite" ? await createTestDatabase(dialect, { file: true }) : fresh.database;
    const secret = await getWebhookSecret(db.db, APP_SECRET); // created before the lock is taken
    const holder = await openDatabase(db.url);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holding =
      dialect === "sqlite"
        ? holder.db.transaction().execute(async (trx) => {
            await trx
              .insertInto("settings")
              .values({ key: "lock-holder", value: "1", updated_at: Date.now() })
              .execute();
            locked();
            await held;
          })
        : holder.db.connection().execute(async (conn) => {
            await sql`lock tables activity_logs write`.execute(conn);
            locked();
            await held;
            await sql`unlock tables`.execute(conn);
          });
    await isLocked;
    try {
      const writer = signalWriterFor(db.db);
      const load = () => writer.write({ logs: [{ type: "webhook", level: "info", message: "load" }] });
      const waiting = Array.from({ length: 4_000 }, load);
      // The writer takes its first batch and stalls on the lock; fill the queue up again.
      await waitFor("the writer to take its first batch", async () => writer.waiting < 4_000, 5000, 1);
      while (writer.waiting < 4_000) waiting.push(load());
      const outcome = await handleWebhook(db.db, {
        rawBody: JSON.stringify({
          secret,
          action: "buy",
          symbol: "BTC-PERP",
          quantity: "0.01",
          order_type: "market",
          id: "overload-1",
        }),
        token: null,
        appSecret: APP_SECRET,
        ip: "127.0.0.1",
      });
      expect(outcome).toEqual({ status: 503, body: { success: false, error: "Server busy, please retry" } });
      release();
      await holding;
      await Promise.all(waiting);
      expect(
        await db.db.selectFrom("signals").select("id").where("dedupe_key", "=", "id:overload-1").execute(),
      ).toEqual([]);
    } finally {
      release();
      await holding.catch(() => undefined);
      await holder.destroy();
      if (db !== fresh.database) await db.cleanup();
    }
  });
});
