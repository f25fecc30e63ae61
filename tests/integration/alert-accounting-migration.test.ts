// Migration 2026_11_27_0500_alert_accounting (issue 25, decision 046), on both databases: a
// channel saved before the alert events existed gets them switched on (they are on by default),
// once, whatever else it had; down takes them off again.
import { describe, expect, test } from "vitest";
import { down, up } from "#db/migrations/2026_11_27_0500_alert_accounting.ts";
import { freshApp } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

describe.each(testDialects())("alert accounting migration on %s", (dialect) => {
  const app = freshApp(dialect);
  const db = () => app.database.db;
  const events = async (channel: string) =>
    JSON.parse(
      (
        await db()
          .selectFrom("notification_channels")
          .select("events")
          .where("channel", "=", channel)
          .executeTakeFirstOrThrow()
      ).events,
    ) as string[];

  test("existing channels get alert_failed and alert_skipped once; down removes them", async () => {
    const row = (channel: string, list: string[]) => ({
      channel,
      enabled: 1,
      settings: "{}",
      secrets_enc: null,
      secret_hints: "{}",
      events: JSON.stringify(list),
      updated_at: Date.now(),
      updated_by: "old",
    });
    await db().deleteFrom("notification_channels").execute();
    await db()
      .insertInto("notification_channels")
      .values([row("webhook", ["order_failed", "drift"]), row("email", []), row("telegram", ["alert_failed"])])
      .execute();
    await up(db());
    await up(db()); // idempotent
    expect(await events("webhook")).toEqual(["order_failed", "drift", "alert_failed", "alert_skipped"]);
    expect(await events("email")).toEqual(["alert_failed", "alert_skipped"]);
    expect(await events("telegram")).toEqual(["alert_failed", "alert_skipped"]);
    await down(db());
    expect(await events("webhook")).toEqual(["order_failed", "drift"]);
    expect(await events("telegram")).toEqual([]);
  });
});
