// Exits under the emergency stop (issue 22, docs/decisions/019-emergency-stop-blocks-entries.md):
// the stop blocks entries, adds and the new side of a flip, never an order that only reduces
// the open position. Pure decimals, shared by the webhook, the worker and manual orders.
import { D } from "../decimal.ts";
import type { PositionTarget } from "../schemas/webhook-signal.ts";
import { sideForOrder } from "./net-position.ts";

export interface HeldPosition {
  side: "long" | "short";
  /** What is still open. */
  remainingQuantity: string;
}

export interface ExitPart {
  /** The order's size as sent: at most what is open. */
  quantity: string;
  /** The order asked for more than is open (a flip): cut to flat, the new side blocked. */
  cut: boolean;
}

/**
 * The part of an order that reduces the open position, or null when it reduces nothing (no
 * position, or an order on the position's own side). A flip becomes close only.
 */
export function exitPart(position: HeldPosition | null, side: "buy" | "sell", quantity: string): ExitPart | null {
  if (!position || D(position.remainingQuantity).lte(0) || sideForOrder(side) === position.side) return null;
  const cut = D(quantity).gt(position.remainingQuantity);
  return { quantity: cut ? D(position.remainingQuantity).toString() : quantity, cut };
}

/** Whether an alert may reduce the open position: a buy/sell against it, or a target toward (or past) flat. */
export function mayReduce(
  position: HeldPosition | null,
  signal: { action: "buy" | "sell"; target: PositionTarget | null },
): boolean {
  if (!position || D(position.remainingQuantity).lte(0)) return false;
  if (!signal.target) return sideForOrder(signal.action) !== position.side;
  const held = position.side === "long" ? D(position.remainingQuantity) : D(position.remainingQuantity).neg();
  const to =
    signal.target.side === "flat"
      ? D(0)
      : signal.target.side === "long"
        ? D(signal.target.size)
        : D(signal.target.size).neg();
  return position.side === "long" ? to.lt(held) : to.gt(held);
}

/** The activity-log line of an exit let through the emergency stop. */
export function exitLine(input: {
  side: "buy" | "sell";
  asked: string;
  symbol: string;
  position: HeldPosition;
  exit: ExitPart;
}): string {
  const { side, asked, symbol, position, exit } = input;
  const open = `${position.side} ${D(position.remainingQuantity).toString()}`;
  return exit.cut
    ? `Emergency stop is active: ${side.toUpperCase()} ${asked} ${symbol} cut to ${exit.quantity} and sent reduce-only: it closes the ${open} position; no ${position.side === "long" ? "short" : "long"} position is opened until the stop is reset`
    : `Emergency stop is active: ${side.toUpperCase()} ${exit.quantity} ${symbol} sent reduce-only: it only reduces the ${open} position`;
}
