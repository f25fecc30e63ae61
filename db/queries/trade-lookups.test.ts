// The worker's per-fill lookups on `trades` use an index that pins what they ask for, not a
// walk over every executed trade (migration 2026_11_26_0400; docs/benchmarks.md, "Issue 14").
// The queries are the functions' own, captured as they compile. SQLite must plan through the
// index (EXPLAIN QUERY PLAN: without table statistics it preferred a status-only index);
// MariaDB must be able to (EXPLAIN's possible_keys). The partial-fill range finds what the
// old LIKE found, and no neighbour.
import { CompiledQuery, type KyselyPlugin, type Kysely } from "kysely";
import { describe, expect, test } from "vitest";
import { freshDatabase } from "#tests/setup/fresh-database.ts";
import { testDialects } from "#tests/setup/db.ts";
import type { DB } from "#db/schema.ts";
import { lastExecutedTradeOfPosition } from "./notifications.ts";
import { listExecutedTradeRowsByIds, symbolFillsHead } from "./statistics.ts";
import { insertTrade, listPartialFills, updateTrade } from "./trades.ts";

/** Runs `call` on a view of `db` that records each query it compiles. */
async function queriesOf(db: Kysely<DB>, call: (db: Kysely<DB>) => Promise<unknown>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  const spy: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      seen.push(db.getExecutor().compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  await call(db.withPlugin(spy));
  return seen;
}

/** A manual market buy of 1 on the simulator, the trade row these tests insert (symbol added per test). */
const MANUAL_MARKET_BUY = {
  side: "buy" as const,
  orderType: "market" as const,
  quantity: "1",
  price: null,
  source: "manual",
  exchange: "simulator",
};

describe.each(testDialects())("trade lookups on %s", (dialect) => {
  const ref = freshDatabase(dialect);

  /** The index each query's plan reads `trades` through. */
  async function indexesUsed(queries: CompiledQuery[]): Promise<string[]> {
    const used: string[] = [];
    for (const q of queries) {
      if (dialect === "sqlite") {
        const plan = await ref.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]),
        );
        used.push(plan.rows.map((r) => r.detail).join(" | "));
      } else {
        // MariaDB costs plans from the table's statistics (an empty table's choice is
        // arbitrary): the index must be one it can use for the query.
        const plan = await ref.db.executeQuery<{ possible_keys: string | null }>(
          CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]),
        );
        used.push(plan.rows.map((r) => r.possible_keys ?? "(none)").join(" | "));
      }
    }
    return used;
  }

  test("the newest fill of a position: (position_id, status, executed_at)", async () => {
    const queries = await queriesOf(ref.db, (db) => lastExecutedTradeOfPosition(db, "pos-1"));
    expect(queries).toHaveLength(1);
    expect((await indexesUsed(queries))[0]).toContain("trades_position_status_executed_idx");
  });

  test("a symbol's fill count and newest fill: (symbol, executed_at, status, executed_price)", async () => {
    // The count, the newest fill's time, then the greatest id at that time (read only when there is a fill).
    expect(await queriesOf(ref.db, (db) => symbolFillsHead(db, "BTC-PERP"))).toHaveLength(2);
    const fill = { ...MANUAL_MARKET_BUY, symbol: "BTC-PERP" };
    for (const [id, executedAt] of [
      ["head-a", 1_000],
      ["head-c", 2_000],
      ["head-b", 2_000],
    ] as const) {
      await insertTrade(ref.db, { ...fill, id, clientOrderId: `c-${id}` });
      await updateTrade(ref.db, id, { status: "executed", executedPrice: "100", executedQuantity: "1", executedAt });
    }
    expect(await symbolFillsHead(ref.db, "BTC-PERP")).toEqual({ count: 3, lastId: "head-c", lastAt: 2_000 });
    const queries = await queriesOf(ref.db, (db) => symbolFillsHead(db, "BTC-PERP"));
    expect(queries).toHaveLength(3);
    const plans = await indexesUsed(queries);
    for (const plan of plans) expect(plan).toContain("trades_symbol_executed_idx");
    // The count reads the index alone.
    if (dialect === "sqlite")
      expect(plans.some((plan) => plan.includes("COVERING INDEX trades_symbol_executed_idx"))).toBe(true);
  });

  test("the statistics cache's uncounted trades by id: the primary key, not the status index", async () => {
    const queries = await queriesOf(ref.db, (db) => listExecutedTradeRowsByIds(db, ["t-1", "t-2", "t-3"]));
    expect(queries).toHaveLength(1);
    const plan = (await indexesUsed(queries))[0]!;
    if (dialect === "sqlite") expect(plan).toMatch(/USING INDEX sqlite_autoindex_trades_1 \(id=\?\)|USING PRIMARY KEY/);
    else expect(plan).toBe("PRIMARY");
  });

  test("an order's partial fills: (status, client_order_id) as a range, and exactly the order's own rows", async () => {
    const queries = await queriesOf(ref.db, (db) => listPartialFills(db, "pd-order-1"));
    expect(queries).toHaveLength(1);
    expect((await indexesUsed(queries))[0]).toContain("trades_status_client_order_idx");

    const base = { ...MANUAL_MARKET_BUY, symbol: "ETH-PERP", status: "executed" as const };
    const ids = ["pd-order-1#p1", "pd-order-1#p2", "pd-order-1", "pd-order-10#p1", "pd-order-1#q1", "pd-order_1#p1"];
    for (const [i, clientOrderId] of ids.entries())
      await insertTrade(ref.db, { ...base, id: `lookup-${i}`, clientOrderId });
    const rows = await listPartialFills(ref.db, "pd-order-1");
    expect(rows).toHaveLength(2);
  });
});
