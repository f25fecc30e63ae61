// Small helpers shared by the repositories.
import { createHash, randomUUID } from "node:crypto";
import { type Kysely, MysqlAdapter, type Selectable, type Transaction } from "kysely";
import type { DB } from "../schema.ts";

export type Db = Kysely<DB>;

export function isMysql(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof MysqlAdapter;
}

const RETRYABLE_MYSQL = new Set([1213 /* deadlock */, 1205 /* lock wait timeout */]);

/**
 * One transaction; on MySQL a deadlock victim or a lock-wait timeout (InnoDB rolled it back,
 * so nothing of it happened) is run again, up to `attempts` times in all, after a short
 * random pause.
 */
export async function transactionWithLockRetry<T>(
  db: Kysely<DB>,
  work: (trx: Transaction<DB>) => Promise<T>,
  attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      const errno = (error as { errno?: number }).errno;
      if (attempt < attempts && errno !== undefined && RETRYABLE_MYSQL.has(errno) && isMysql(db)) {
        await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.floor(Math.random() * 10)));
        continue;
      }
      throw error;
    }
  }
}

export const newId = (): string => randomUUID();

export const nowMs = (): number => Date.now();

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export const toBool = (value: number | boolean | null | undefined): boolean => Boolean(Number(value ?? 0));
export const fromBool = (value: boolean): number => (value ? 1 : 0);

export function parseJson<T = unknown>(text: string | null | undefined, fallback: T): T {
  if (text == null || text === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export const toIso = (ms: number | null | undefined): string | null =>
  ms == null ? null : new Date(Number(ms)).toISOString();

/** The append-only feeds, tailed by their auto-increment id (docs/architecture.md: ids whose order matters). */
type Feed = "events" | "activity_logs";

/** A feed's rows after `afterId`, oldest first, up to `limit`. */
export function feedRowsAfter<T extends Feed>(db: Db, table: T, afterId: number, limit: number) {
  return db
    .selectFrom(table as Feed)
    .selectAll()
    .where("id", ">", afterId)
    .orderBy("id", "asc")
    .limit(limit)
    .execute() as Promise<Selectable<DB[T]>[]>;
}

/** A feed's newest id; 0 while it is empty. */
export async function latestFeedId(db: Db, table: Feed): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}
