// The position-protection rules (docs/decisions/008-position-rules.md): what one price tick
// means for one open position, long or short. Pure and deterministic: decimals in, decimals
// and actions out, no I/O. The worker's monitor (worker/monitor/rules-monitor.ts) turns the
// actions into close-position jobs and persists the state.
//
// Per tick, from the position's advancedControls (fractions) and its rule state:
// - maxDrawdown: the worst adverse excursion so far, in percent of the entry price;
// - portfolioPercent: remaining × price / account equity × 100 (when equity is given);
// - stop loss: entry × (1 − offset) for a long, entry × (1 + offset) for a short, or the
//   price set by hand on the position (stopLossPrice, decision 048: on either side of the
//   entry, in profit too); once the first take-profit has filled and break-even is on
//   (breakEvenTriggered), the stop is the honest break-even price (breakeven.ts: entry + the
//   fees of entry and exit + the user's offset, decision 046), kept in the rule state when it
//   armed, unless the stop set by hand is tighter. Price at or through the stop closes everything;
// - trailing stop: arms (trailingStopActive) when the price reaches entry × (1 ± activation),
//   then tracks the best price; a retrace of `execute` from the best (best × (1 ∓ execute))
//   closes everything;
// - take profits: every enabled level not yet filled, requested or skipped whose price
//   (entry × (1 ± priceDeviation)) is reached is taken — several at once when a gap jumps
//   over them, in ONE action. Level i closes `portfolio` of the ORIGINAL quantity; the last
//   level (the highest enabled deviation) closes whatever remains. The product is the ACTIVE
//   exchange's (exchange/trading-product.ts: on Coinbase one increment = one
//   contract). A share is rounded to the NEAREST whole increment (half up), at least the
//   minimum size, and never so much that less than the minimum is left for the last level;
//   a position too small to split closes nothing at an earlier level (it is skipped and its
//   share stays for the last level). rules/contracts.ts, docs/decisions/025.
// A stop or trailing exit wins over take profits in the same tick (it closes everything),
// and nothing new is requested once a close of everything is pending. A rule whose closes keep
// failing still fires: the monitor holds a trigger that is backing off (ruleHeld, state.ts),
// so refused orders are retried at growing intervals, never in a hot loop, and never given up.
import { Big } from "../decimal.ts";
import type { AdvancedControls } from "../orders/controls.ts";
import type { ProductSpec } from "../products.ts";
import { breakEvenPrice } from "./breakeven.ts";
import { takeProfitSize } from "./contracts.ts";
import { type RuleState, type RuleTrigger, parseRuleState, ruleJobKey } from "./state.ts";

export interface RulePosition {
  id: string;
  symbol: string;
  side: "long" | "short";
  /** Size at its largest: the ORIGINAL quantity take-profit shares are taken of. */
  quantity: string;
  remainingQuantity: string;
  entryPrice: string;
  advancedControls: AdvancedControls | null;
  breakEvenTriggered: boolean;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  /** Percent, >= 0. */
  maxDrawdown: string;
  ruleState: RuleState | Record<string, unknown> | null;
}

export type RuleProduct = Pick<ProductSpec, "baseIncrement" | "baseMinSize">;

export interface CloseAction {
  trigger: RuleTrigger;
  /** "tp1" ... "tpN" (named after the highest level it takes), "sl", "trail". */
  name: string;
  /** rule:<positionId>:<name>[:<n>]: one trigger, one job, across workers and restarts. */
  jobKey: string;
  /** Take-profit level indexes (0-based) this close takes; empty for sl / trail. */
  levels: number[];
  /** A decimal quantity, or "all": whatever remains when the close is sent. */
  quantity: string;
  /** What the close amounts to now (for the log): `quantity`, or what remains of the position less pending closes. */
  closeQuantity: string;
  /** The tick price that triggered it. */
  price: string;
  /** "Take profit 1 hit", "Take profits 1 and 2 hit", "Stop loss hit", "Break-even stop hit", "Trailing stop hit". */
  reason: string;
}

export interface RuleSnapshot {
  currentPrice: string;
  maxDrawdown: string;
  trailingStopActive: boolean;
  trailingBestPrice: string | null;
  /** The stop in force (null: no stop loss). */
  stopPrice: string | null;
  /** null when no equity was given. */
  portfolioPercent: string | null;
}

export interface Evaluation {
  actions: CloseAction[];
  /** Levels reached this tick that cannot be split off in whole contracts (no close: left for the last level). */
  skippedLevels: number[];
  /** The trailing stop armed on this tick. */
  trailingArmed: boolean;
  state: RuleSnapshot;
  /** Whether maxDrawdown, the trailing state or portfolioPercent differ from the position's. */
  stateChanged: boolean;
}

export interface EvaluateOptions {
  /** Account equity in the quote currency, for portfolioPercent. */
  equity?: string | null;
  /** The position's current portfolioPercent, to tell whether it changed. */
  portfolioPercent?: string | null;
}

/** Decimal places kept for maxDrawdown and portfolioPercent (percent values). */
export const DRAWDOWN_DP = 4;
export const PORTFOLIO_DP = 2;

const ZERO = new Big(0);
const ONE = new Big(1);
const HUNDRED = new Big(100);
const HALF_CENT = new Big("0.005"); // half a unit of the last portfolioPercent decimal

// Divisions straight to the decimals kept, with the rounding wanted (exact: big.js rounds the
// quotient itself), instead of 36-digit quotients rounded afterwards.
const DrawdownBig = Big();
DrawdownBig.DP = DRAWDOWN_DP;
DrawdownBig.RM = Big.roundUp;
const PortfolioBig = Big();
PortfolioBig.DP = PORTFOLIO_DP;
PortfolioBig.RM = Big.roundHalfUp;
const FloorBig = Big();
FloorBig.DP = 0;
FloorBig.RM = Big.roundDown;

// The same decimal strings (entries, sizes, fractions, prices) come back every tick: parse
// each once. Big values are immutable (every operation returns a new one), so sharing is safe.
const PARSED = new Map<string, Big>();
const PARSED_MAX = 50_000;
export function dec(value: string | number | Big): Big {
  if (value instanceof Big) return value;
  const key = typeof value === "number" ? String(value) : value;
  let parsed = PARSED.get(key);
  if (parsed === undefined) {
    if (PARSED.size >= PARSED_MAX) PARSED.clear();
    parsed = new Big(key);
    PARSED.set(key, parsed);
  }
  return parsed;
}

/**
 * The prices a position's controls derive from its entry (take-profit targets, trailing
 * activation, the stop before break-even) and the trailing exit factor. They change only
 * with the entry or the controls, so they are kept per controls object and entry: the
 * monitor's controls objects are shared across positions and ticks.
 */
interface Thresholds {
  takeProfits: (Big | null)[];
  activation: Big | null;
  exitFactor: Big | null;
  stop: string | null;
}
const THRESHOLDS = new WeakMap<object, Map<string, Thresholds>>();

function thresholdsFor(controls: AdvancedControls, side: "long" | "short", entryText: string, entry: Big): Thresholds {
  let perEntry = THRESHOLDS.get(controls);
  if (!perEntry) THRESHOLDS.set(controls, (perEntry = new Map()));
  const key = `${side}|${entryText}`;
  let found = perEntry.get(key);
  if (!found) {
    if (perEntry.size >= 10_000) perEntry.clear();
    const long = side === "long";
    const away = (fraction: number) => entry.times(long ? ONE.plus(dec(fraction)) : ONE.minus(dec(fraction)));
    const trailing = controls.trailingStop;
    found = {
      takeProfits: (controls.takeProfits ?? []).map((level) =>
        level.enabled ? (level.price ? dec(level.price) : away(level.priceDeviation)) : null,
      ),
      activation: trailing ? away(trailing.activation) : null,
      exitFactor: trailing ? (long ? ONE.minus(dec(trailing.execute)) : ONE.plus(dec(trailing.execute))) : null,
      stop: stopPriceFor({ side, entryPrice: entryText, advancedControls: controls, breakEvenTriggered: false }),
    };
    perEntry.set(key, found);
  }
  return found;
}

/** Rounds DOWN to a multiple of the increment (exactly). */
function floorTo(value: Big, increment: string): Big {
  const inc = dec(increment);
  if (inc.lte(ZERO)) return value;
  return new FloorBig(value).div(inc).times(inc);
}

/**
 * Whether these controls carry a stop loss: a price set by hand on the position (on either side
 * of the entry, decision 048) or an offset above 0 from the trading rules.
 */
export const hasStopLoss = (controls: AdvancedControls | null | undefined): boolean =>
  Boolean(controls && (controls.stopLossPrice || (controls.stopLossOffset != null && controls.stopLossOffset > 0)));

/** The tighter of two stops: the higher for a long, the lower for a short. */
export const tighterStop = (side: "long" | "short", a: string, b: string): string =>
  (side === "long" ? dec(a).gte(dec(b)) : dec(a).lte(dec(b))) ? a : b;

/**
 * The stop the controls set, before break-even: the price typed by hand (decision 048, which
 * may lie past the entry, in profit), else entry × (1 ∓ offset). null: no stop loss.
 */
export function ownStopPrice(position: Pick<RulePosition, "side" | "entryPrice" | "advancedControls">): string | null {
  const controls = position.advancedControls;
  if (!hasStopLoss(controls)) return null;
  if (controls!.stopLossPrice) return dec(controls!.stopLossPrice).toString();
  const offset = dec(controls!.stopLossOffset!);
  const factor = position.side === "long" ? ONE.minus(offset) : ONE.plus(offset);
  return dec(position.entryPrice).times(factor).toString();
}

/** The break-even stop once it has armed: the one kept in the rule state, else estimated (decision 046). */
export function armedBreakEvenStop(
  position: Pick<RulePosition, "side" | "entryPrice" | "advancedControls"> & { ruleState?: unknown },
): string {
  return (
    parseRuleState(position.ruleState).breakEvenStop ??
    breakEvenPrice(position.side, position.entryPrice, position.advancedControls?.breakEvenOffset ?? null)
  );
}

/**
 * The stop price in force for these controls, or null when there is no stop loss. Once
 * break-even has armed, the break-even stop kept in the rule state (computed with the fees
 * really paid when it armed, rules/close.ts), else one estimated at the default taker rate
 * (breakeven.ts): never the bare entry, which loses the fees (decision 046). A stop set by
 * hand tighter than the break-even stop (past it, in profit) stays in force: break-even never
 * loosens a stop (decision 048).
 */
export function stopPriceFor(
  position: Pick<RulePosition, "side" | "entryPrice" | "advancedControls" | "breakEvenTriggered"> & {
    ruleState?: unknown;
  },
): string | null {
  const own = ownStopPrice(position);
  if (own === null) return null;
  if (position.breakEvenTriggered) return tighterStop(position.side, armedBreakEvenStop(position), own);
  return own;
}

/** Break-even applies when it is on AND there is a stop loss to move (docs/spec/screens.md#states: Inactive without a stop loss). */
export const breakEvenApplies = (controls: AdvancedControls | null | undefined): boolean =>
  Boolean(controls?.breakEven && hasStopLoss(controls));

/** Index of the last take-profit level: the enabled level with the highest deviation (the later one on ties). */
export function lastTakeProfitLevel(levels: AdvancedControls["takeProfits"]): number {
  let last = -1;
  (levels ?? []).forEach((level, i) => {
    if (level.enabled && (last < 0 || level.priceDeviation >= levels![last]!.priceDeviation)) last = i;
  });
  return last;
}

function takeProfitReason(levels: number[]): string {
  const numbers = levels.map((i) => String(i + 1));
  if (numbers.length === 1) return `Take profit ${numbers[0]} hit`;
  return `Take profits ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]} hit`;
}

export function evaluate(
  position: RulePosition,
  price: string | Big,
  product: RuleProduct,
  options: EvaluateOptions = {},
): Evaluation {
  const p = dec(price);
  const entry = dec(position.entryPrice);
  const long = position.side === "long";
  const controls = position.advancedControls;
  const state = parseRuleState(position.ruleState);
  const limits = controls ? thresholdsFor(controls, position.side, position.entryPrice, entry) : null;

  // Worst adverse excursion, in percent of entry (divided only when it is a new worst).
  let maxDrawdown = position.maxDrawdown || "0";
  const adverse = long ? entry.minus(p) : p.minus(entry);
  if (adverse.gt(ZERO) && entry.gt(ZERO) && adverse.times(HUNDRED).gt(dec(maxDrawdown).times(entry))) {
    const excursion = new DrawdownBig(adverse).times(HUNDRED).div(entry);
    if (excursion.gt(dec(maxDrawdown))) maxDrawdown = excursion.toString();
  }

  // Trailing stop: arm, then track the best price.
  let trailingStopActive = position.trailingStopActive;
  let trailingBestPrice = position.trailingBestPrice;
  let trailingArmed = false;
  let trailingHit = false;
  const trailing = controls?.trailingStop ?? null;
  if (trailing) {
    if (!trailingStopActive) {
      const activation = limits!.activation!;
      if (long ? p.gte(activation) : p.lte(activation)) {
        trailingStopActive = true;
        trailingArmed = true;
        trailingBestPrice = p.toString();
      }
    } else if (trailingBestPrice === null || (long ? p.gt(dec(trailingBestPrice)) : p.lt(dec(trailingBestPrice)))) {
      trailingBestPrice = p.toString();
    }
    if (trailingStopActive) {
      const exit = dec(trailingBestPrice!).times(limits!.exitFactor!);
      trailingHit = long ? p.lte(exit) : p.gte(exit);
    }
  } else if (trailingStopActive) {
    // Controls without a trailing stop (rules re-applied): nothing to track.
    trailingStopActive = false;
    trailingBestPrice = null;
  }

  // Armed break-even: its stop, or the stop set by hand when that one is tighter (decision 048).
  const breakEvenStop = position.breakEvenTriggered ? armedBreakEvenStop({ ...position, ruleState: state }) : null;
  const stopPrice = position.breakEvenTriggered
    ? stopPriceFor({ ...position, ruleState: state })
    : (limits?.stop ?? null);
  const stopHit = stopPrice !== null && (long ? p.lte(dec(stopPrice)) : p.gte(dec(stopPrice)));

  // portfolioPercent, 2 decimals half-up; the previous value is kept (no division) while the
  // exact value still rounds to it.
  let portfolioPercent: string | null = null;
  const equity = options.equity == null ? null : dec(options.equity);
  if (equity?.gt(ZERO)) {
    const scaled = dec(position.remainingQuantity).times(p).times(HUNDRED); // = percent × equity
    const previous = options.portfolioPercent == null ? null : dec(options.portfolioPercent);
    const stillRounds =
      previous !== null &&
      scaled.gte(previous.minus(HALF_CENT).times(equity)) &&
      scaled.lt(previous.plus(HALF_CENT).times(equity));
    portfolioPercent = stillRounds ? options.portfolioPercent! : new PortfolioBig(scaled).div(equity).toString();
  }

  const snapshot: RuleSnapshot = {
    currentPrice: typeof price === "string" ? price : p.toString(),
    maxDrawdown,
    trailingStopActive,
    trailingBestPrice,
    stopPrice,
    portfolioPercent,
  };
  const stateChanged =
    maxDrawdown !== (position.maxDrawdown || "0") ||
    trailingStopActive !== position.trailingStopActive ||
    trailingBestPrice !== position.trailingBestPrice ||
    (portfolioPercent !== null && portfolioPercent !== options.portfolioPercent);

  const result: Evaluation = { actions: [], skippedLevels: [], trailingArmed, state: snapshot, stateChanged };

  // What is still free to close: remaining less the closes already requested.
  const pending = Object.values(state.requested);
  if (pending.some((r) => r.quantity === "all")) return result;
  const free = pending.reduce((acc, r) => acc.minus(dec(r.quantity)), dec(position.remainingQuantity));
  if (free.lte(ZERO)) return result;
  let freeCache: string | null = null;
  const freeText = () => (freeCache ??= floorTo(free, product.baseIncrement).toString());

  const closeAll = (trigger: RuleTrigger, name: string, reason: string, levels: number[] = []): CloseAction => ({
    trigger,
    name,
    jobKey: ruleJobKey(position.id, name, state),
    levels,
    quantity: "all",
    closeQuantity: freeText(),
    price: snapshot.currentPrice,
    reason,
  });

  if (stopHit) {
    result.actions.push(closeAll("sl", "sl", stopPrice === breakEvenStop ? "Break-even stop hit" : "Stop loss hit"));
    return result;
  }
  if (trailingHit) {
    result.actions.push(closeAll("trail", "trail", "Trailing stop hit"));
    return result;
  }

  const levels = controls?.takeProfits ?? null;
  if (!levels) return result;
  const taken = new Set<number>([...state.tpFilled, ...state.tpSkipped, ...pending.flatMap((r) => r.levels)]);
  const hit: number[] = [];
  levels.forEach((level, i) => {
    if (!level.enabled || taken.has(i)) return;
    const target = limits!.takeProfits[i]!;
    if (long ? p.gte(target) : p.lte(target)) hit.push(i);
  });
  if (hit.length === 0) return result;

  const name = `tp${hit[hit.length - 1]! + 1}`;
  const reason = takeProfitReason(hit);
  const last = lastTakeProfitLevel(levels);
  const everyLevelTaken = levels.every((level, i) => !level.enabled || taken.has(i) || hit.includes(i));
  if (hit.includes(last) || everyLevelTaken) {
    result.actions.push(closeAll("tp", name, reason, hit));
    return result;
  }
  const share = hit.reduce((acc, i) => acc.plus(dec(levels[i]!.portfolio)), ZERO);
  // Whole contracts of the active exchange's product (rules/contracts.ts, decision 025).
  const sized = takeProfitSize({ original: dec(position.quantity), share, free, product });
  if (sized.kind === "skip") {
    result.skippedLevels = hit;
    return result;
  }
  const quantity = dec(sized.quantity);
  result.actions.push({
    trigger: "tp",
    name,
    jobKey: ruleJobKey(position.id, name, state),
    levels: hit,
    quantity: quantity.toString(),
    closeQuantity: quantity.toString(),
    price: snapshot.currentPrice,
    reason,
  });
  return result;
}
