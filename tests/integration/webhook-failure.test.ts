// When the signal+job transaction cannot commit, the webhook answers 503 (TradingView
// resends on 5xx) and leaves nothing half-written: no signal without its job.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getWebhookSecret, handleWebhook } from "#app/services/webhook.server.ts";
import { type TestDatabase, createTestDatabase, testDialects } from "#tests/setup/db.ts";
import { allowConsoleError } from "#tests/setup/setup-test-env.ts";

const APP_SECRET = "failure-test-secret-0123456789abcdef0123";

describe.each(testDialects())("webhook commit failure on %s", (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.cleanup();
  });

  test("a failing job insert rolls the signal back and answers 503", async () => {
    allowConsoleError(); // the handler reports the failed commit on stderr
    const secret = await getWebhookSecret(database.db, APP_SECRET);
    await sql`alter table jobs rename to jobs_away`.execute(database.db);
    try {
      const outcome = await handleWebhook(database.db, {
        rawBody: JSON.stringify({ secret, action: "buy", symbol: "BTC-PERP", quantity: "0.01", order_type: "market" }),
        token: null,
        appSecret: APP_SECRET,
        ip: "127.0.0.1",
      });
      expect(outcome).toEqual({ status: 503, body: { success: false, error: "Signal could not be stored, please retry" } });
      const signals = await database.db.selectFrom("signals").select("id").execute();
      expect(signals).toEqual([]);
    } finally {
      await sql`alter table jobs_away rename to jobs`.execute(database.db);
    }
    // TradingView's resend, once the database is healthy again, is stored (not a "duplicate").
    const retry = await handleWebhook(database.db, {
      rawBody: JSON.stringify({ secret, action: "buy", symbol: "BTC-PERP", quantity: "0.01", order_type: "market" }),
      token: null,
      appSecret: APP_SECRET,
      ip: "127.0.0.1",
    });
    expect(retry).toMatchObject({ status: 200, body: { success: true, status: "queued" } });
  });
});
