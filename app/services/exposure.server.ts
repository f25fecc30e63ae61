// What is open on a live exchange (issue 11, narrowed by issue 22): positions and orders stay
// on the exchange that holds them (docs/decisions/039-positions-stay-on-their-exchange.md).
// Paper positions and orders stay on the simulator, which is always there, so they never stop
// a trader from adding, enabling or switching an exchange. Positions and orders held on
// Coinbase would be left unreachable by a change of its key, mode or enabled connection:
// such a change is refused with a message naming them.
import type { Kysely } from "kysely";
import { D } from "#app/core/decimal.ts";
import { jsonError } from "#app/utils/api.server.ts";
import type { DB } from "#db/schema.ts";

export class OpenExposureError extends Error {
  readonly status = 409;
}

/** Null when nothing is open; else the refusal naming the open positions and pending orders. */
export async function openExposure(db: Kysely<DB>): Promise<string | null> {
  const positions = await db
    .selectFrom("positions")
    .select(["symbol", "side", "remaining_quantity"])
    .where("status", "=", "open")
    .where("exchange", "<>", "simulator")
    .orderBy("symbol")
    .execute();
  const pending = Number(
    (
      await db
        .selectFrom("trades")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("status", "=", "pending")
        .where("exchange", "<>", "simulator")
        .executeTakeFirst()
    )?.n ?? 0,
  );
  if (positions.length === 0 && pending === 0) return null;
  const parts = positions.map((p) => `${p.symbol} ${p.side} ${D(p.remaining_quantity).toString()}`);
  if (pending > 0) parts.push(`${pending} pending order${pending === 1 ? "" : "s"}`);
  return `Close the positions and cancel the orders held on Coinbase first (Flatten all): they stay on the exchange they were opened on. Open on Coinbase: ${parts.join(", ")}`;
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
