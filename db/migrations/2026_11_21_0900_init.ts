// The initial schema: every entity of docs/spec/api.md#shapes plus jobs, events, sessions, settings.
// Frozen: this file never imports application code. Each statement is idempotent
// (IF NOT EXISTS, or a duplicate index ignored) because MySQL DDL is not transactional:
// a migration interrupted half-way completes when it runs again.
import { type Kysely, MysqlAdapter, sql } from "kysely";

type Db = Kysely<any>;

function isMysql(db: Db) {
  return db.getExecutor().adapter instanceof MysqlAdapter;
}

export async function up(db: Db): Promise<void> {
  const mysql = isMysql(db);
  const dec = mysql ? sql`decimal(36,18)` : sql`text`;
  const autoId = mysql ? sql`bigint` : sql`integer`;
  const longText = mysql ? sql`mediumtext` : sql`text`;
  const str = (n: number) => sql.raw(mysql ? `varchar(${n})` : "text");

  const table = (name: string) => db.schema.createTable(name).ifNotExists();
  const index = async (name: string, tableName: string, columns: string[], unique = false) => {
    let builder = db.schema.createIndex(name).on(tableName).columns(columns);
    if (unique) builder = builder.unique();
    if (!mysql) builder = builder.ifNotExists();
    try {
      await builder.execute();
    } catch (error) {
      // MySQL has no CREATE INDEX IF NOT EXISTS: ER_DUP_KEYNAME (1061) means it is there.
      if (mysql && (error as { errno?: number }).errno === 1061) return;
      throw error;
    }
  };
  const finish = <T extends { execute(): Promise<unknown> }>(b: T) => b.execute();
  const engine = <T>(b: T) =>
    (mysql ? (b as any).modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`) : b) as T;

  await finish(
    engine(
      table("users")
        .addColumn("id", str(36), (c) => c.primaryKey())
        .addColumn("username", str(20), (c) => c.notNull())
        .addColumn("username_key", str(20), (c) => c.notNull().unique())
        .addColumn("password_hash", str(255), (c) => c.notNull())
        .addColumn("role", str(16), (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );

  await finish(
    engine(
      table("sessions")
        .addColumn("id", str(64), (c) => c.primaryKey())
        .addColumn("user_id", str(36), (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addColumn("last_seen_at", "bigint", (c) => c.notNull())
        .addColumn("ip", str(64))
        .addColumn("user_agent", str(255)),
    ),
  );
  await index("sessions_user_id_idx", "sessions", ["user_id"]);
  await index("sessions_expires_at_idx", "sessions", ["expires_at"]);

  await finish(
    engine(
      table("login_throttles")
        .addColumn("key", str(191), (c) => c.primaryKey())
        .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("locked_until", "bigint")
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );

  await finish(
    engine(
      table("settings")
        .addColumn("key", str(100), (c) => c.primaryKey())
        .addColumn("value", longText, (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );

  await finish(
    engine(
      table("exchanges")
        .addColumn("id", str(36), (c) => c.primaryKey())
        .addColumn("exchange_name", str(32), (c) => c.notNull())
        .addColumn("account_name", str(100), (c) => c.notNull())
        .addColumn("api_key", str(512), (c) => c.notNull())
        .addColumn("api_secret_enc", longText, (c) => c.notNull())
        .addColumn("passphrase_enc", longText)
        .addColumn("sandbox", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("is_enabled", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("connection_status", str(16), (c) => c.notNull().defaultTo("disconnected"))
        .addColumn("status_message", longText)
        .addColumn("total_usd_value", dec)
        .addColumn("last_tested_at", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );

  await finish(
    engine(
      table("signals")
        .addColumn("id", str(36), (c) => c.primaryKey())
        .addColumn("action", str(8), (c) => c.notNull())
        .addColumn("symbol", str(32), (c) => c.notNull())
        .addColumn("order_type", str(8), (c) => c.notNull())
        .addColumn("price", dec)
        .addColumn("quantity", dec, (c) => c.notNull())
        .addColumn("payload", longText, (c) => c.notNull())
        .addColumn("strategy", str(255))
        .addColumn("signal_time", "bigint")
        .addColumn("dedupe_key", str(128), (c) => c.notNull().unique())
        .addColumn("processed", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("status", str(16), (c) => c.notNull())
        .addColumn("status_reason", longText)
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("processed_at", "bigint"),
    ),
  );
  await index("signals_created_at_idx", "signals", ["created_at", "id"]);
  await index("signals_symbol_created_at_idx", "signals", ["symbol", "created_at"]);

  await finish(
    engine(
      table("jobs")
        .addColumn("id", autoId, (c) => c.primaryKey().autoIncrement())
        .addColumn("task", str(64), (c) => c.notNull())
        .addColumn("payload", longText, (c) => c.notNull())
        .addColumn("status", str(16), (c) => c.notNull())
        .addColumn("priority", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("max_attempts", "integer", (c) => c.notNull().defaultTo(8))
        .addColumn("run_at", "bigint", (c) => c.notNull())
        .addColumn("locked_by", str(100))
        .addColumn("locked_until", "bigint")
        .addColumn("last_error", longText)
        .addColumn("job_key", str(191), (c) => c.unique())
        .addColumn("signal_id", str(36), (c) => c.references("signals.id").onDelete("set null"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("finished_at", "bigint"),
    ),
  );
  // Matches the claim: status in (created, retry) and run_at <= now, oldest first.
  await index("jobs_claim_idx", "jobs", ["status", "run_at", "id"]);
  await index("jobs_lease_idx", "jobs", ["status", "locked_until"]);
  await index("jobs_signal_id_idx", "jobs", ["signal_id"]);

  await finish(
    engine(
      table("positions")
        .addColumn("id", str(36), (c) => c.primaryKey())
        .addColumn("symbol", str(32), (c) => c.notNull())
        .addColumn("side", str(8), (c) => c.notNull())
        .addColumn("quantity", dec, (c) => c.notNull())
        .addColumn("remaining_quantity", dec, (c) => c.notNull())
        .addColumn("entry_price", dec, (c) => c.notNull())
        .addColumn("current_price", dec)
        .addColumn("entry_trade_id", str(36))
        .addColumn("max_drawdown", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("portfolio_percent", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("status", str(16), (c) => c.notNull())
        .addColumn("break_even_triggered", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("trailing_stop_active", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("trailing_best_price", dec)
        .addColumn("stop_price", dec)
        .addColumn("advanced_controls", longText)
        .addColumn("rule_state", longText)
        .addColumn("realized_pnl", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("fees", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("leverage", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("margin_type", str(16), (c) => c.notNull().defaultTo("cross"))
        .addColumn("source", str(16), (c) => c.notNull())
        .addColumn("signal_id", str(36), (c) => c.references("signals.id").onDelete("set null"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("closed_at", "bigint"),
    ),
  );
  await index("positions_status_symbol_idx", "positions", ["status", "symbol"]);
  await index("positions_created_at_idx", "positions", ["created_at"]);

  await finish(
    engine(
      table("trades")
        .addColumn("id", str(36), (c) => c.primaryKey())
        .addColumn("symbol", str(32), (c) => c.notNull())
        .addColumn("side", str(8), (c) => c.notNull())
        .addColumn("order_type", str(8), (c) => c.notNull())
        .addColumn("quantity", dec, (c) => c.notNull())
        .addColumn("price", dec)
        .addColumn("executed_price", dec)
        .addColumn("executed_quantity", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("fee", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("status", str(16), (c) => c.notNull())
        .addColumn("source", str(16), (c) => c.notNull())
        .addColumn("order_id", str(100))
        .addColumn("client_order_id", str(100), (c) => c.notNull().unique())
        .addColumn("exchange", str(32), (c) => c.notNull())
        .addColumn("signal_id", str(36), (c) => c.references("signals.id").onDelete("set null"))
        .addColumn("position_id", str(36), (c) => c.references("positions.id").onDelete("set null"))
        .addColumn("job_id", "bigint")
        .addColumn("leverage", "integer")
        .addColumn("margin_type", str(16))
        .addColumn("reduce_only", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("error_message", longText)
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("executed_at", "bigint")
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );
  await index("trades_created_at_idx", "trades", ["created_at", "id"]);
  await index("trades_status_created_at_idx", "trades", ["status", "created_at"]);
  await index("trades_symbol_created_at_idx", "trades", ["symbol", "created_at"]);
  await index("trades_position_id_idx", "trades", ["position_id"]);
  await index("trades_signal_id_idx", "trades", ["signal_id"]);

  await finish(
    engine(
      table("activity_logs")
        .addColumn("id", autoId, (c) => c.primaryKey().autoIncrement())
        .addColumn("type", str(32), (c) => c.notNull())
        .addColumn("level", str(16), (c) => c.notNull())
        .addColumn("message", longText, (c) => c.notNull())
        .addColumn("data", longText)
        .addColumn("created_at", "bigint", (c) => c.notNull()),
    ),
  );
  await index("activity_logs_created_at_idx", "activity_logs", ["created_at"]);
  await index("activity_logs_type_level_idx", "activity_logs", ["type", "level", "id"]);
  await index("activity_logs_level_idx", "activity_logs", ["level", "id"]);

  await finish(
    engine(
      table("events")
        .addColumn("id", autoId, (c) => c.primaryKey().autoIncrement())
        .addColumn("type", str(32), (c) => c.notNull())
        .addColumn("data", longText, (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull()),
    ),
  );
  await index("events_created_at_idx", "events", ["created_at"]);

  await finish(
    engine(
      table("worker_heartbeats")
        .addColumn("worker_id", str(100), (c) => c.primaryKey())
        .addColumn("hostname", str(255), (c) => c.notNull())
        .addColumn("pid", "integer", (c) => c.notNull())
        .addColumn("started_at", "bigint", (c) => c.notNull())
        .addColumn("last_beat_at", "bigint", (c) => c.notNull())
        .addColumn("status", str(16), (c) => c.notNull())
        .addColumn("info", longText),
    ),
  );
  await index("worker_heartbeats_last_beat_idx", "worker_heartbeats", ["last_beat_at"]);

  await finish(
    engine(
      table("profiles")
        .addColumn("id", str(36), (c) => c.primaryKey())
        .addColumn("profile_id", str(100), (c) => c.notNull().unique())
        .addColumn("name", str(100), (c) => c.notNull())
        .addColumn("is_default", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("trading_enabled", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("has_margin_enabled", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("source", str(16), (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );

  await finish(
    engine(
      table("balances")
        .addColumn("profile_id", str(36), (c) => c.notNull().references("profiles.id").onDelete("cascade"))
        .addColumn("currency", str(16), (c) => c.notNull())
        .addColumn("available", dec, (c) => c.notNull())
        .addColumn("hold", dec, (c) => c.notNull().defaultTo("0"))
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("balances_pk", ["profile_id", "currency"]),
    ),
  );

  await finish(
    engine(
      table("market_prices")
        .addColumn("symbol", str(32), (c) => c.primaryKey())
        .addColumn("price", dec, (c) => c.notNull())
        .addColumn("bid", dec)
        .addColumn("ask", dec)
        .addColumn("source", str(16), (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );

  await finish(
    engine(
      table("reports")
        .addColumn("id", str(36), (c) => c.primaryKey())
        .addColumn("report_id", str(100))
        .addColumn("type", str(16), (c) => c.notNull())
        .addColumn("format", str(8), (c) => c.notNull())
        .addColumn("status", str(16), (c) => c.notNull())
        .addColumn("requested_at", "bigint", (c) => c.notNull())
        .addColumn("start_date", str(32))
        .addColumn("end_date", str(32))
        .addColumn("product_id", str(64))
        .addColumn("profile_id", str(100))
        .addColumn("year", str(8))
        .addColumn("file_path", longText)
        .addColumn("file_url", longText)
        .addColumn("error_message", longText)
        .addColumn("user_id", str(36), (c) => c.references("users.id").onDelete("set null"))
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull()),
    ),
  );
  await index("reports_requested_at_idx", "reports", ["requested_at"]);
}

export async function down(db: Db): Promise<void> {
  for (const name of [
    "reports",
    "market_prices",
    "balances",
    "profiles",
    "worker_heartbeats",
    "events",
    "activity_logs",
    "trades",
    "positions",
    "jobs",
    "signals",
    "exchanges",
    "settings",
    "login_throttles",
    "sessions",
    "users",
  ]) {
    await db.schema.dropTable(name).ifExists().execute();
  }
}
