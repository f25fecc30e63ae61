// One order in flight per exchange and symbol (issue 15; migration 2026_11_25_0400). A slot
// is taken with one conditional UPDATE (free, already ours, or its lease expired), created on
// first use with INSERT IGNORE; never inside a transaction held across the exchange call.
import { TemporaryError } from "../../app/core/exchange/errors.ts";
import type { Db } from "./util.ts";

/** How long a slot stays taken without being given back (a worker that died mid-order). */
export const ORDER_SLOT_TTL_MS = 30_000;
/** How long an order waits for the slot before its job is retried. */
export const ORDER_SLOT_WAIT_MS = 15_000;

/** Takes (or renews) the slot for `holder`; false when another holder has it. */
export async function tryOrderSlot(db: Db, exchange: string, symbol: string, holder: string, now = Date.now(), ttlMs = ORDER_SLOT_TTL_MS): Promise<boolean> {
  const take = () =>
    db
      .updateTable("order_slots")
      .set({ holder, expires_at: now + ttlMs })
      .where("exchange", "=", exchange)
      .where("symbol", "=", symbol)
      .where((eb) => eb.or([eb("holder", "is", null), eb("holder", "=", holder), eb("expires_at", "<", now)]))
      .executeTakeFirst();
  if (Number((await take()).numUpdatedRows ?? 0) > 0) return true;
  const inserted = await db.insertInto("order_slots").ignore().values({ exchange, symbol, holder, expires_at: now + ttlMs }).executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Waits (polling) until the slot is ours. Throws TemporaryError after `waitMs`: the job is
 * retried later, nothing was sent.
 */
export async function acquireOrderSlot(
  db: Db,
  exchange: string,
  symbol: string,
  holder: string,
  options: { waitMs?: number; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.waitMs ?? ORDER_SLOT_WAIT_MS);
  for (;;) {
    if (await tryOrderSlot(db, exchange, symbol, holder)) return;
    if (Date.now() >= deadline) throw new TemporaryError(`Another order for ${symbol} is still in flight on ${exchange}: this one waits its turn`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 20));
  }
}

/** Gives the slot back (only if `holder` still has it). */
export async function releaseOrderSlot(db: Db, exchange: string, symbol: string, holder: string): Promise<void> {
  await db.updateTable("order_slots").set({ holder: null, expires_at: 0 }).where("exchange", "=", exchange).where("symbol", "=", symbol).where("holder", "=", holder).execute();
}

/** Who holds the slot now (null when free or expired). */
export async function orderSlotHolder(db: Db, exchange: string, symbol: string, now = Date.now()): Promise<string | null> {
  const row = await db.selectFrom("order_slots").select(["holder", "expires_at"]).where("exchange", "=", exchange).where("symbol", "=", symbol).executeTakeFirst();
  return row?.holder && Number(row.expires_at) >= now ? row.holder : null;
}
