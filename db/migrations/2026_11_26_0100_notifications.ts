// Notifications (issue 13, decision 030): per-channel settings (secrets AES-GCM encrypted as one
// blob), the notifications the notifier found, and one delivery row per (notification, channel)
// that the `send-notification` job moves through queued → sent | retrying | failed | digested.
// Frozen: never imports application code; idempotent.
import { type Kysely, MysqlAdapter, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  const long = mysql ? sql`mediumtext` : sql`text`;
  const engine = <T extends { modifyEnd(s: unknown): T }>(t: T) => (mysql ? t.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`) : t);

  await engine(
    db.schema
      .createTable("notification_channels")
      .ifNotExists()
      .addColumn("channel", str(16), (c) => c.primaryKey())
      .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("settings", long, (c) => c.notNull())
      .addColumn("secrets_enc", long)
      .addColumn("secret_hints", long, (c) => c.notNull())
      .addColumn("events", long, (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("updated_by", str(64)),
  ).execute();

  await engine(
    db.schema
      .createTable("notifications")
      .ifNotExists()
      .addColumn("id", str(36), (c) => c.primaryKey())
      .addColumn("kind", str(32), (c) => c.notNull())
      .addColumn("title", str(255), (c) => c.notNull())
      .addColumn("body", long, (c) => c.notNull())
      .addColumn("dedupe_key", str(191))
      .addColumn("created_at", "bigint", (c) => c.notNull()),
  ).execute();
  await db.schema.createIndex("notifications_dedupe_key_idx").ifNotExists().unique().on("notifications").column("dedupe_key").execute();

  await engine(
    db.schema
      .createTable("notification_deliveries")
      .ifNotExists()
      .addColumn("id", mysql ? sql`bigint` : sql`integer`, (c) => c.primaryKey().autoIncrement())
      .addColumn("notification_id", str(36), (c) => c.notNull())
      .addColumn("channel", str(16), (c) => c.notNull())
      .addColumn("status", str(16), (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("last_error", long)
      .addColumn("digest_id", str(36))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .addColumn("sent_at", "bigint"),
  ).execute();
  await db.schema.createIndex("notification_deliveries_once_idx").ifNotExists().unique().on("notification_deliveries").columns(["notification_id", "channel"]).execute();
  await db.schema.createIndex("notification_deliveries_window_idx").ifNotExists().on("notification_deliveries").columns(["channel", "sent_at"]).execute();
  await db.schema.createIndex("notification_deliveries_digest_idx").ifNotExists().on("notification_deliveries").column("digest_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("notification_deliveries").ifExists().execute();
  await db.schema.dropTable("notifications").ifExists().execute();
  await db.schema.dropTable("notification_channels").ifExists().execute();
}
