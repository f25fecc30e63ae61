// Target-position signals (issue 12): the order that brings a position to the size a
// TradingView strategy reports ({{strategy.market_position}} / _size). Pure decimals.
import { D, floorToIncrement } from "../decimal.ts";
import type { ProductSpec } from "../products.ts";
import type { PositionTarget } from "../schemas/webhook-signal.ts";

export interface TargetPlanInput {
  target: PositionTarget;
  /** The app's open position (what remains), null when flat. */
  position: { side: "long" | "short"; quantity: string } | null;
  /** Orders of the symbol already on their way: counted as if filled. */
  pending: { side: "buy" | "sell"; quantity: string }[];
  product: Pick<ProductSpec, "baseIncrement" | "baseMinSize">;
}

export interface TargetPlan {
  order: { side: "buy" | "sell"; quantity: string } | null;
  /** The order opens, adds to or flips the position (a late one is not chased); false: it only reduces. */
  entry: boolean;
  /** Why nothing is sent. */
  reason: string;
  /** Signed sizes (long +): where the position is (with pending orders) and where it should be. */
  from: string;
  to: string;
}

const signed = (side: "long" | "short" | "flat", size: string) =>
  side === "short" ? D(size).neg() : side === "flat" ? D(0) : D(size);

export function planTargetOrder(input: TargetPlanInput): TargetPlan {
  let from = input.position ? signed(input.position.side, input.position.quantity) : D(0);
  for (const p of input.pending) from = p.side === "buy" ? from.plus(p.quantity) : from.minus(p.quantity);
  const to = signed(input.target.side, input.target.size);
  const delta = to.minus(from);
  const quantity = floorToIncrement(delta.abs().toString(), input.product.baseIncrement);
  const describe = (v: ReturnType<typeof D>) =>
    v.eq(0) ? "flat" : `${v.gt(0) ? "long" : "short"} ${v.abs().toString()}`;
  const base = { from: from.toString(), to: to.toString() };
  if (D(quantity).lt(input.product.baseMinSize) || D(quantity).eq(0)) {
    return { ...base, order: null, entry: false, reason: `Position already at the target (${describe(to)})` };
  }
  // An entry when the position grows or changes side; a reduction moves toward flat without crossing it.
  const entry = to.abs().gt(from.abs()) || (!from.eq(0) && !to.eq(0) && from.gt(0) !== to.gt(0));
  return {
    ...base,
    order: { side: delta.gt(0) ? "buy" : "sell", quantity },
    entry,
    reason: `${describe(from)} → ${describe(to)}`,
  };
}
