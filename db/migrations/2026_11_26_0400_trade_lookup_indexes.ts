// Lookups the worker makes on every fill, which SQLite answered by walking every executed
// trade: without table statistics its planner prefers trades_status_updated_at_idx (status=?)
// over the single-column indexes, so "the newest fill of this position", "this symbol's fill
// count and newest fill" and "the partial fills of this order" each read ~10,000 rows at
// 10,000 trades (1–2 ms per query, most of the worker's CPU under 100 fills/s;
// docs/benchmarks.md, "Issue 14"). Each index below leads with what the query pins.
// Frozen: never imports application code; idempotent (MySQL DDL is not transactional).
import { type Kysely, MysqlAdapter } from "kysely";

const TRADE_INDEXES = {
  trades_position_status_executed_idx: ["position_id", "status", "executed_at"],
  // Ordered by execution time, status and price inside: the count is read from the index
  // alone, and the newest fill is its symbol's last entry.
  trades_symbol_executed_idx: ["symbol", "executed_at", "status", "executed_price"],
  trades_status_client_order_idx: ["status", "client_order_id"],
} as const;

export async function up(db: Kysely<any>): Promise<void> {
  const onMysql = db.getExecutor().adapter instanceof MysqlAdapter;
  for (const [indexName, indexColumns] of Object.entries(TRADE_INDEXES)) {
    const create = db.schema.createIndex(indexName).on("trades").columns([...indexColumns]);
    // MySQL has no CREATE INDEX IF NOT EXISTS; a rerun there meets ER_DUP_KEYNAME (1061).
    await (onMysql ? create : create.ifNotExists()).execute().catch((error: { errno?: number }) => {
      if (!(onMysql && error.errno === 1061)) throw error;
    });
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const onMysql = db.getExecutor().adapter instanceof MysqlAdapter;
  for (const indexName of Object.keys(TRADE_INDEXES)) {
    await (onMysql ? db.schema.dropIndex(indexName).on("trades") : db.schema.dropIndex(indexName).ifExists()).execute();
  }
}
