import Big from "big.js";
import type { Kysely } from "kysely";
import { describe, expect, test } from "vitest";
import { migrateToLatest } from "#db/migrate.ts";
import { down, up } from "#db/migrations/2026_11_21_0900_init.ts";
import { migrations } from "#db/migrations/index.ts";
import type { DB } from "#db/schema.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

// The tables the init migration creates (and its down drops).
const INIT_TABLES = [
  "users",
  "sessions",
  "login_throttles",
  "settings",
  "exchanges",
  "signals",
  "jobs",
  "trades",
  "positions",
  "activity_logs",
  "events",
  "worker_heartbeats",
  "profiles",
  "balances",
  "market_prices",
  "reports",
] as const satisfies readonly (keyof DB)[];

// Every table of the DB interface. The type below fails `tsc` when db/schema.ts gains a
// table that is not listed here, so the list cannot silently fall behind.
const TABLES = [
  ...INIT_TABLES,
  "sim_orders",
  "sim_positions",
  "position_locks",
  "profile_transfers",
  "invites",
  "recovery_codes",
  "password_resets",
  "drifts",
  "order_slots",
  "strategy_heartbeats",
  "exchange_stops",
  "sim_funding",
  "funding_payments",
  "strategies",
  "signal_timeline",
  "audit_entries",
  "notification_channels",
  "notifications",
  "notification_deliveries",
  "candles",
  "equity_snapshots",
] as const satisfies readonly (keyof DB)[];
type Unlisted = Exclude<keyof DB, (typeof TABLES)[number]>;
const everyTableListed: [Unlisted] extends [never] ? true : false = true;

const INIT = "2026_11_21_0900_init";
const ALL_MIGRATIONS = Object.keys(migrations).sort();

async function tableNames(db: Kysely<any>): Promise<string[]> {
  const tables = await db.introspection.getTables();
  return tables
    .filter((t) => !t.isView)
    .map((t) => t.name)
    .sort();
}

const norm = (value: string | null) => (value == null ? value : new Big(value).toString());

describe.each(testDialects())("migrations on %s", (dialect) => {
  describe("from an empty database", () => {
    const fresh = freshDatabase(dialect, { migrate: false });

    test("the database starts empty and migrateToLatest applies every migration, init first", async () => {
      expect(everyTableListed).toBe(true);
      expect(await tableNames(fresh.db)).toEqual([]);
      const applied = await migrateToLatest(fresh.db);
      expect(applied[0]).toBe(INIT);
      expect(applied).toEqual(ALL_MIGRATIONS);
    });

    test("every table of DB exists afterwards", async () => {
      const names = await tableNames(fresh.db);
      for (const table of TABLES) expect(names, table).toContain(table);
    });

    test("a second migrateToLatest applies nothing", async () => {
      const before = await tableNames(fresh.db);
      expect(await migrateToLatest(fresh.db)).toEqual([]);
      expect(await tableNames(fresh.db)).toEqual(before);
    });

    test("running the init migration's up again is harmless (idempotent statements)", async () => {
      const before = await tableNames(fresh.db);
      await expect(up(fresh.db)).resolves.toBeUndefined();
      expect(await tableNames(fresh.db)).toEqual(before);
    });

    test("decimals round-trip exactly in trades and positions", async () => {
      const db = fresh.db as Kysely<DB>;
      const now = Date.now();
      const values = {
        wide: "123456789012345678.123456789012345678",
        tiny: "0.000000000000000001",
        negative: "-98765.4321",
        whole: "42",
      };
      await db
        .insertInto("trades")
        .values({
          id: "trade-1",
          symbol: "BTC-PERP",
          side: "buy",
          order_type: "limit",
          quantity: values.wide,
          price: values.tiny,
          executed_price: values.negative,
          executed_quantity: values.whole,
          status: "executed",
          source: "manual",
          client_order_id: "client-1",
          exchange: "simulator",
          created_at: now,
          updated_at: now,
        })
        .execute();
      await db
        .insertInto("positions")
        .values({
          id: "position-1",
          symbol: "BTC-PERP",
          side: "long",
          quantity: values.wide,
          remaining_quantity: values.tiny,
          entry_price: values.whole,
          realized_pnl: values.negative,
          status: "open",
          source: "manual",
          created_at: now,
          updated_at: now,
        })
        .execute();

      const trade = await db.selectFrom("trades").selectAll().where("id", "=", "trade-1").executeTakeFirstOrThrow();
      for (const column of ["quantity", "price", "executed_price", "executed_quantity", "fee"] as const) {
        expect(typeof trade[column], column).toBe("string");
      }
      expect(norm(trade.quantity)).toBe(norm(values.wide));
      expect(norm(trade.quantity)).toBe("123456789012345678.123456789012345678");
      expect(norm(trade.price)).toBe(norm(values.tiny));
      expect(norm(trade.executed_price)).toBe(norm(values.negative));
      expect(norm(trade.executed_quantity)).toBe("42");
      expect(norm(trade.fee)).toBe("0"); // the column default

      const position = await db
        .selectFrom("positions")
        .selectAll()
        .where("id", "=", "position-1")
        .executeTakeFirstOrThrow();
      expect(typeof position.quantity).toBe("string");
      expect(norm(position.quantity)).toBe("123456789012345678.123456789012345678");
      expect(norm(position.remaining_quantity)).toBe(norm(values.tiny));
      expect(norm(position.entry_price)).toBe("42");
      expect(norm(position.realized_pnl)).toBe("-98765.4321");
      expect(norm(position.max_drawdown)).toBe("0");
      expect(position.leverage).toBe(1);
      expect(position.margin_type).toBe("cross");
    });

    test("epoch milliseconds come back as the same numbers", async () => {
      const db = fresh.db as Kysely<DB>;
      const ms = 1_893_456_000_123; // 2030, beyond 32 bits
      await db.insertInto("settings").values({ key: "ms-check", value: "1", updated_at: ms }).execute();
      const row = await db.selectFrom("settings").selectAll().where("key", "=", "ms-check").executeTakeFirstOrThrow();
      expect(Number(row.updated_at)).toBe(ms);
    });
  });

  describe("the init migration's down", () => {
    const fresh = freshDatabase(dialect);

    test("drops every table, even with rows linked by foreign keys, and up restores them", async () => {
      const db = fresh.db;
      const now = Date.now();
      await db
        .insertInto("users")
        .values({
          id: "u1",
          username: "alice",
          username_key: "alice",
          password_hash: "h",
          role: "admin",
          created_at: now,
          updated_at: now,
        })
        .execute();
      await db
        .insertInto("sessions")
        .values({ id: "s1", user_id: "u1", created_at: now, expires_at: now + 1000, last_seen_at: now })
        .execute();
      await db
        .insertInto("profiles")
        .values({
          id: "p1",
          profile_id: "default",
          name: "Default",
          source: "simulator",
          created_at: now,
          updated_at: now,
        })
        .execute();
      await db
        .insertInto("balances")
        .values({ profile_id: "p1", currency: "USD", available: "10", updated_at: now })
        .execute();
      await db
        .insertInto("signals")
        .values({
          id: "sig1",
          action: "buy",
          symbol: "BTC-PERP",
          order_type: "market",
          quantity: "1",
          payload: "{}",
          dedupe_key: "d1",
          status: "queued",
          created_at: now,
        })
        .execute();
      await db
        .insertInto("jobs")
        .values({
          task: "t",
          payload: "{}",
          status: "created",
          run_at: now,
          signal_id: "sig1",
          created_at: now,
          updated_at: now,
        })
        .execute();
      // Undo the later migrations first (they build on init's tables), newest first.
      for (const name of ALL_MIGRATIONS.filter((n) => n !== INIT).reverse()) await migrations[name]!.down?.(db);
      expect(await tableNames(db)).toEqual([...INIT_TABLES].sort());

      await down(db);
      expect(await tableNames(db)).toEqual([]);

      await up(db);
      expect(await tableNames(db)).toEqual([...INIT_TABLES].sort());
      expect(await db.selectFrom("users").selectAll().execute()).toEqual([]);
    });
  });
});
