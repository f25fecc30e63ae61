// The simulator migration (db/migrations/2026_11_21_1000_simulator.ts): idempotent, and its
// down/up pair round-trips. (db/migrate.test.ts covers the migration set as a whole.)
import { sql } from "kysely";
import { describe, expect, test } from "vitest";
import { down, up } from "#db/migrations/2026_11_21_1000_simulator.ts";
import { testDialects } from "#tests/setup/db.ts";
import { freshDatabase } from "#tests/setup/fresh-database.ts";

describe.each(testDialects())("simulator migration on %s", (dialect) => {
  const fresh = freshDatabase(dialect);

  // This migration's tables (sim_funding comes later: 2026_11_25_0500_paper_funding).
  const simTables = async () =>
    (await fresh.db.introspection.getTables())
      .map((t) => t.name)
      .filter((n) => n === "sim_orders" || n === "sim_positions")
      .sort();

  async function indexNames(table: string): Promise<string[]> {
    if (dialect === "mysql") {
      const result = await sql<{ Key_name: string }>`show index from ${sql.table(table)}`.execute(fresh.db);
      return [...new Set(result.rows.map((r) => r.Key_name))].sort();
    }
    const result = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'index' and tbl_name = ${table} and name not like 'sqlite_autoindex%'`.execute(
      fresh.db,
    );
    return result.rows.map((r) => r.name).sort();
  }

  test("creates both tables and the matching index; running up again is harmless", async () => {
    expect(await simTables()).toEqual(["sim_orders", "sim_positions"]);
    expect(await indexNames("sim_orders")).toEqual(
      expect.arrayContaining(["sim_orders_status_symbol_idx", "sim_orders_profile_created_idx"]),
    );
    await expect(up(fresh.db)).resolves.toBeUndefined();
    expect(await simTables()).toEqual(["sim_orders", "sim_positions"]);
  });

  test("the client order id is unique and decimals keep 18 places", async () => {
    const db = fresh.db;
    const now = Date.now();
    await db
      .insertInto("profiles")
      .values({ id: "p1", profile_id: "p1", name: "P", source: "simulator", created_at: now, updated_at: now })
      .execute();
    const order = {
      client_order_id: "c1",
      profile_id: "p1",
      symbol: "ETH-PERP",
      side: "buy",
      order_type: "market",
      quantity: "1.000000000000000001",
      status: "filled",
      created_at: now,
      updated_at: now,
    };
    await db
      .insertInto("sim_orders")
      .values({ id: "o1", ...order })
      .execute();
    await expect(
      db
        .insertInto("sim_orders")
        .values({ id: "o2", ...order })
        .execute(),
    ).rejects.toThrow();
    const row = await db.selectFrom("sim_orders").selectAll().executeTakeFirstOrThrow();
    expect(String(row.quantity).replace(/0+$/, "")).toBe("1.000000000000000001");
    expect(row.leverage).toBe(1);
    expect(row.margin_type).toBe("cross");
    expect(row.reduce_only).toBe(0);
  });

  test("down drops both tables and up restores them", async () => {
    await down(fresh.db);
    expect(await simTables()).toEqual([]);
    await up(fresh.db);
    expect(await simTables()).toEqual(["sim_orders", "sim_positions"]);
  });
});
