// What is open on the exchange the app trades with (issue 11): positions and orders are
// bound to the exchange and mode they were opened on, so switching credentials, sandbox or
// the enabled connection while any is open would leave them unprotected (closes and rules
// would go to the other account). Such a switch is refused with a message naming them.
import type { Kysely } from "kysely";
import { D } from "#app/core/decimal.ts";
import { jsonError } from "#app/utils/api.server.ts";
import type { DB } from "#db/schema.ts";

export class OpenExposureError extends Error {
  readonly status = 409;
}

/** Null when nothing is open; else the refusal naming the open positions and pending orders. */
export async function openExposure(db: Kysely<DB>): Promise<string | null> {
  const positions = await db.selectFrom("positions").select(["symbol", "side", "remaining_quantity"]).where("status", "=", "open").orderBy("symbol").execute();
  const pending = Number((await db.selectFrom("trades").select((eb) => eb.fn.countAll<number>().as("n")).where("status", "=", "pending").executeTakeFirst())?.n ?? 0);
  if (positions.length === 0 && pending === 0) return null;
  const parts = positions.map((p) => `${p.symbol} ${p.side} ${D(p.remaining_quantity).toString()}`);
  if (pending > 0) parts.push(`${pending} pending order${pending === 1 ? "" : "s"}`);
  return `Close the positions and cancel the orders first (Flatten all): they stay on the exchange they were opened on. Open: ${parts.join(", ")}`;
}

/** Throws OpenExposureError (409) while anything is open. */
export async function assertNoOpenExposure(db: Kysely<DB>): Promise<void> {
  const refusal = await openExposure(db);
  if (refusal) throw new OpenExposureError(refusal);
}

/** For an API route's `.catch`: the refusal as a 409 JSON answer; any other error is rethrown. */
export function refuseOnExposure(error: unknown): Response {
  if (error instanceof OpenExposureError) return jsonError(409, error.message);
  throw error;
}
