// Safe on a public server (issue 10):
// - users: `disabled` (sessions refused at once), `last_login_at`, TOTP two-factor state
//   (`totp_secret_enc`: the confirmed secret, AES-GCM with APP_SECRET like exchange keys;
//   `totp_pending_enc`: a secret being enrolled, not yet confirmed by a code;
//   `totp_last_step`: the 30 s time step of the last accepted code, so a code is used once).
// - roles: `admin` | `trader` | `viewer`. Accounts of the old non-admin role `user` were made
//   by open registration, which anyone reaching the server could do: they become `viewer`
//   (read-only) and an admin promotes whom they trust (docs/decisions/015-roles-and-invitations.md).
// - invites: one-use registration codes with the role they grant, 7 days.
// - recovery_codes: ten one-time 2FA recovery codes per user, SHA-256 only.
// Frozen: never imports application code; each statement is idempotent (MySQL DDL is not
// transactional).
import { type Kysely, MysqlAdapter, sql } from "kysely";

type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");
  const text = mysql ? sql`text` : sql`text`;

  const index = async (name: string, tableName: string, columns: string[], unique = false) => {
    let builder = db.schema.createIndex(name).on(tableName).columns(columns);
    if (unique) builder = builder.unique();
    if (!mysql) builder = builder.ifNotExists();
    try {
      await builder.execute();
    } catch (error) {
      if (mysql && (error as { errno?: number }).errno === 1061) return; // ER_DUP_KEYNAME
      throw error;
    }
  };
  const addColumn = async (tableName: string, column: string, type: any, build?: (c: any) => any) => {
    try {
      await db.schema.alterTable(tableName).addColumn(column, type, build ?? ((c) => c)).execute();
    } catch (error) {
      const e = error as { errno?: number; message?: string };
      if (e.errno === 1060 || /duplicate column/i.test(e.message ?? "")) return;
      throw error;
    }
  };

  await addColumn("users", "disabled", "integer", (c) => c.notNull().defaultTo(0));
  await addColumn("users", "last_login_at", "bigint");
  await addColumn("users", "totp_secret_enc", text);
  await addColumn("users", "totp_pending_enc", text);
  await addColumn("users", "totp_last_step", "bigint");
  await db.updateTable("users").set({ role: "viewer" }).where("role", "not in", ["admin", "trader", "viewer"]).execute();

  const tail = (builder: any) => (mysql ? builder.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`) : builder);

  await tail(
    db.schema
      .createTable("invites")
      .ifNotExists()
      .addColumn("code", str(64), (c) => c.primaryKey())
      .addColumn("role", str(16), (c) => c.notNull())
      .addColumn("created_by", str(36))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint")
      .addColumn("used_by", str(36)),
  ).execute();
  await index("invites_expires_idx", "invites", ["used_at", "expires_at"]);

  await tail(
    db.schema
      .createTable("recovery_codes")
      .ifNotExists()
      .addColumn("code_hash", str(64), (c) => c.primaryKey())
      .addColumn("user_id", str(36), (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("used_at", "bigint"),
  ).execute();
  await index("recovery_codes_user_idx", "recovery_codes", ["user_id"]);
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable("recovery_codes").ifExists().execute();
  await db.schema.dropTable("invites").ifExists().execute();
  for (const column of ["totp_last_step", "totp_pending_enc", "totp_secret_enc", "last_login_at", "disabled"]) {
    try {
      await db.schema.alterTable("users").dropColumn(column).execute();
    } catch {
      // already gone
    }
  }
  await db.updateTable("users").set({ role: "user" }).where("role", "in", ["trader", "viewer"]).execute();
}
