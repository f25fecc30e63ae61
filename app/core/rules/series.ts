// The rules over a price series instead of live ticks (docs/decisions/047-replay.md): the seam
// the what-if replay (app/core/replay/replay.ts) runs the SAME engine through. Pure, no I/O.
//
// What the worker does per live tick, done here per price point, in the same order:
// - the monitor (worker/monitor/rules-monitor.ts): evaluate() the position at the price,
//   recordSkipped() for levels too small to split, recordRequest() for the close it asks for;
// - the close-position task (worker/tasks/close-position.ts): closeQuantity() of what remains;
// - bookOrder (worker/execution.ts): applyCloseFill() (take-profit levels filled, break-even),
//   the remaining quantity reduced, the position closed when nothing remains.
// A close fills at once at the price that triggered it (no exchange latency, no slippage): the
// replay's fill model, stated in the decision. The worker's own code paths are unchanged.
//
// Inside a 1-minute candle the order of its high and low is unknown. candlePath() assumes the
// ADVERSE extreme first (open, low, high, close for a long; open, high, low, close for a
// short): a stop is always hit before a take-profit in the same minute (conservative). Between
// two points of the path the price is taken to move continuously: walkPath() stops at every rule
// level (levels.ts: take-profits, stop, break-even, trailing activation and exit, from the
// position's state at that moment) crossed on the way, so a close fills at its level, as a
// resting order would, and a jump (the first point: a candle's open after a gap) fills at the
// point itself.
import { Big } from "../decimal.ts";
import type { BreakEvenCosts } from "./breakeven.ts";
import { applyCloseFill, closeQuantity } from "./close.ts";
import { type RulePosition, type RuleProduct, evaluate } from "./engine.ts";
import { chartLevels } from "./levels.ts";
import { type RuleState, parseRuleState, recordRequest, recordSkipped, releaseRequest } from "./state.ts";

export interface SeriesFill {
  /** "tp1" ... "tpN", "sl", "trail" (the engine's trigger name). */
  name: string;
  trigger: "tp" | "sl" | "trail";
  /** Take-profit level indexes (0-based) the close took. */
  levels: number[];
  quantity: string;
  price: string;
  reason: string;
}

export interface SeriesStep<P extends RulePosition = RulePosition> {
  /** The position after the price (its other fields kept): remainingQuantity "0" once closed. */
  position: P;
  fills: SeriesFill[];
}

/** The job id a replayed close carries: it fills before the next price, so one is enough. */
const REPLAY_JOB = 1;

/**
 * One price point: the monitor's decision, the close task's size and bookOrder's fill, at once.
 * `costs`: what the break-even stop covers, as bookOrder passes them (the position's entry fees,
 * the exit's fee rate, the tick; decision 046).
 */
export function stepSeries<P extends RulePosition>(
  position: P,
  price: string,
  product: RuleProduct,
  costs?: BreakEvenCosts | null,
): SeriesStep<P> {
  const evaluation = evaluate(position, price, product);
  let state: RuleState = parseRuleState(position.ruleState);
  if (evaluation.skippedLevels.length > 0) state = recordSkipped(state, evaluation.skippedLevels);
  let current: P = {
    ...position,
    maxDrawdown: evaluation.state.maxDrawdown,
    trailingStopActive: evaluation.state.trailingStopActive,
    trailingBestPrice: evaluation.state.trailingBestPrice,
    ruleState: state,
  };
  const fills: SeriesFill[] = [];
  for (const action of evaluation.actions) {
    state = recordRequest(state, action, REPLAY_JOB);
    const quantity = closeQuantity(action.quantity, current.remainingQuantity, "0", product);
    if (quantity === "0") {
      // Nothing the exchange would take: the request is released, as the close task does.
      state = releaseRequest(state, action.name);
      current = { ...current, ruleState: state };
      continue;
    }
    const effect = applyCloseFill({ ...current, ruleState: state }, REPLAY_JOB, costs);
    state = effect.ruleState;
    const remaining = new Big(current.remainingQuantity).minus(quantity);
    current = {
      ...current,
      remainingQuantity: remaining.lte(0) ? "0" : remaining.toString(),
      breakEvenTriggered: effect.breakEvenTriggered,
      ruleState: state,
    };
    fills.push({
      name: action.name,
      trigger: action.trigger,
      levels: action.levels,
      quantity,
      price: action.price,
      reason: action.reason,
    });
    if (remaining.lte(0)) break;
  }
  return { position: { ...current, ruleState: state }, fills };
}

export interface OhlcCandle {
  open: string;
  high: string;
  low: string;
  close: string;
}

/** The candle's prices in the order assumed: the adverse extreme first (see the file's comment). */
export function candlePath(side: "long" | "short", candle: OhlcCandle): string[] {
  return side === "long"
    ? [candle.open, candle.low, candle.high, candle.close]
    : [candle.open, candle.high, candle.low, candle.close];
}

/**
 * The prices where the engine can act on this position now: the take-profit levels not yet
 * taken, the stop in force (stop loss or break-even), the trailing activation or exit
 * (levels.ts, the chart's levels); the entry and the break-even marker before it arms decide
 * nothing and are left out. Kept per controls object and level state: a walk asks for them at
 * every segment, and they change only when a rule fires or the trailing stop moves.
 */
export function actionLevels(position: RulePosition): { prices: Big[]; numbers: number[] } {
  const controls = position.advancedControls;
  if (!controls) return NO_LEVELS;
  const state = position.ruleState as Partial<RuleState> | null;
  const key = [
    position.side,
    position.entryPrice,
    position.breakEvenTriggered ? 1 : 0,
    position.trailingStopActive ? 1 : 0,
    position.trailingBestPrice ?? "",
    state?.tpFilled?.join(",") ?? "",
    state?.tpSkipped?.join(",") ?? "",
    state?.breakEvenStop ?? "",
  ].join("|");
  let perControls = LEVEL_CACHE.get(controls);
  if (!perControls) LEVEL_CACHE.set(controls, (perControls = new Map()));
  let found = perControls.get(key);
  if (!found) {
    if (perControls.size >= 10_000) perControls.clear();
    const prices = chartLevels(position)
      .filter(
        (l) =>
          l.kind !== "entry" &&
          l.title !== "BE" &&
          !(l.kind === "tp" && (l.note === "filled" || l.note.startsWith("reached"))),
      )
      .map((l) => new Big(l.price));
    found = { prices, numbers: prices.map((p) => p.toNumber()) };
    perControls.set(key, found);
  }
  return found;
}
const NO_LEVELS = { prices: [] as Big[], numbers: [] as number[] };
const LEVEL_CACHE = new WeakMap<object, Map<string, { prices: Big[]; numbers: number[] }>>();

/** Rule levels strictly between `from` and `to`, the nearest to `from`. */
function nextLevel(position: RulePosition, from: Big, to: Big): Big | undefined {
  const up = to.gt(from);
  let best: Big | undefined;
  for (const p of actionLevels(position).prices) {
    if (up ? p.gt(from) && p.lt(to) : p.lt(from) && p.gt(to)) {
      if (!best || (up ? p.lt(best) : p.gt(best))) best = p;
    }
  }
  return best;
}

/** At most this many level crossings between two points of a path (more levels than any controls carry). */
const MAX_CROSSINGS = 64;

/**
 * The position along a path of prices: the first point as a jump, then every rule level
 * crossed on the way to each next point, then the point. Stops once the position is closed.
 * `onFill` hears each close with the index of the path point it happened on the way to.
 */
export function walkPath<P extends RulePosition>(
  position: P,
  path: readonly string[],
  product: RuleProduct,
  onFill?: (fill: SeriesFill, point: number) => void,
  costs?: BreakEvenCosts | null,
): P {
  let current = position;
  let last: Big | null = null;
  for (let i = 0; i < path.length; i++) {
    const target = new Big(path[i]!);
    let from: Big | null = last;
    if (from !== null && !target.eq(from)) {
      for (let n = 0; n < MAX_CROSSINGS; n++) {
        const next = nextLevel(current, from, target);
        if (!next) break;
        current = apply(current, next.toString(), product, i, onFill, costs);
        if (closed(current)) return current;
        from = next;
      }
    }
    current = apply(current, path[i]!, product, i, onFill, costs);
    if (closed(current)) return current;
    last = target;
  }
  return current;
}

const closed = (position: RulePosition) => new Big(position.remainingQuantity).lte(0);

function apply<P extends RulePosition>(
  position: P,
  price: string,
  product: RuleProduct,
  point: number,
  onFill: ((fill: SeriesFill, point: number) => void) | undefined,
  costs: BreakEvenCosts | null | undefined,
): P {
  const step = stepSeries(position, price, product, costs);
  for (const fill of step.fills) onFill?.(fill, point);
  return step.position;
}
