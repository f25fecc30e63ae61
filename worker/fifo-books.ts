// The realized P&L of a fill as it is booked: the same FIFO matching (app/core/pnl/fifo.ts)
// over the same executed fills as the statistics ledger, so a trade's realized P&L, its
// position's, the activity line and every statistic are one figure (issue 11, "One P&L
// truth"; docs/pnl.md). One FifoBook per symbol per worker process, brought up to date under
// the symbol's lock before each fill: unchanged (same count, same last fill) it answers at
// once; fills another worker booked are appended; anything else (a reset, a rolled-back
// booking) rebuilds the symbol's book from its fills.
import type { Kysely } from "kysely";
import { type ExecutedFill, FifoBook, type RealizedMatch } from "#app/core/pnl/fifo.ts";
import { type FillKey, keyBefore } from "#app/core/pnl/ledger.ts";
import { D } from "#app/core/decimal.ts";
import { listSymbolFills, symbolFillsHead } from "#db/queries/statistics.ts";
import type { Db } from "#db/queries/util.ts";
import type { DB } from "#db/schema.ts";

interface SymbolBook {
  book: FifoBook;
  count: number;
  last: FillKey | null;
}

const byOrder = (a: ExecutedFill, b: ExecutedFill) => (keyBefore(a, b) ? -1 : keyBefore(b, a) ? 1 : 0);

const books = new WeakMap<object, Map<string, SymbolBook>>();

function booksOf(db: object): Map<string, SymbolBook> {
  let map = books.get(db);
  if (!map) {
    map = new Map();
    books.set(db, map);
  }
  return map;
}

function fresh(fills: ExecutedFill[]): SymbolBook {
  const book = new FifoBook();
  const sorted = [...fills].sort(byOrder);
  for (const fill of sorted) book.apply(fill);
  const last = sorted.at(-1);
  return { book, count: sorted.length, last: last ? { executedAt: last.executedAt, id: last.id } : null };
}

/** The symbol's book with every executed fill committed so far; call under the symbol's lock. */
async function currentBook(trx: Db, cacheKey: object, symbol: string): Promise<SymbolBook> {
  const map = booksOf(cacheKey);
  const head = await symbolFillsHead(trx, symbol);
  const cached = map.get(symbol);
  if (cached && cached.count === head.count && (cached.last?.id ?? null) === head.lastId) return cached;
  if (cached?.last && head.count > cached.count) {
    const newer = (await listSymbolFills(trx, symbol, cached.last)).sort(byOrder);
    if (cached.count + newer.length === head.count && newer.every((f) => keyBefore(cached.last!, f))) {
      for (const fill of newer) cached.book.apply(fill);
      cached.count += newer.length;
      const last = newer.at(-1)!;
      cached.last = { executedAt: last.executedAt, id: last.id };
      return cached;
    }
  }
  const rebuilt = fresh(await listSymbolFills(trx, symbol));
  map.set(symbol, rebuilt);
  return rebuilt;
}

export interface RealizedFill {
  /** Sum of the matches' net P&L (gross minus the entry and exit fee shares); null when the fill closed nothing. */
  realizedPnl: string | null;
  matches: RealizedMatch[];
  /** The execution time to book the fill with: after every fill of its symbol. */
  executedAt: number;
}

/**
 * Realizes `fill` (not yet written) against the symbol's open FIFO lots. Its executedAt is
 * moved after the symbol's last fill when the clock says otherwise, so the ledger orders it
 * the same way. The caller writes the trade with the returned executedAt in the same
 * transaction; if that transaction rolls back the next call sees the mismatch and rebuilds.
 */
export async function realizeFill(
  trx: Db,
  db: Kysely<DB>,
  fill: Omit<ExecutedFill, "executedAt"> & { executedAt?: number },
): Promise<RealizedFill> {
  const entry = await currentBook(trx, db, fill.symbol);
  let executedAt = fill.executedAt ?? Date.now();
  if (entry.last && !keyBefore(entry.last, { executedAt, id: fill.id })) executedAt = entry.last.executedAt + 1;
  const matches = entry.book.apply({ ...fill, executedAt });
  entry.count++;
  entry.last = { executedAt, id: fill.id };
  const realizedPnl = matches.length === 0 ? null : matches.reduce((sum, m) => sum.plus(m.netPnl), D(0)).toString();
  return { realizedPnl, matches, executedAt };
}
