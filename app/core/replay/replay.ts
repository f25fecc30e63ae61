// The what-if replay (issue 25, docs/decisions/047-replay.md): the recorded alerts of a period
// played again over the stored 1-minute candles with other protection rules. Pure and
// deterministic: the same alerts, candles and rules give the same figures, to the last decimal.
//
// Nothing here is a second implementation of the pipeline:
// - sizing: sizeSignalOrder (orders/sizing.ts), planTargetOrder for target-position alerts
//   (orders/target.ts), capToMaxPosition for a strategy's max position size (orders/strategy.ts);
// - the net position per symbol: applyFill (orders/net-position.ts), as bookOrder books a fill;
// - protection: the rules engine through its price-series seam (rules/series.ts: evaluate,
//   the rule state, closeQuantity, applyCloseFill; whole contracts by rules/contracts.ts);
// - P&L: every fill (entries, rule closes, alert exits) with its taker fee goes through the one
//   FIFO ledger (pnl/fifo.ts); funding is added as the paper exchange charges it; the equity
//   curve and its drawdown are the Performance screen's (performance/charts.ts).
//
// The model, stated on the screen too (docs/spec/screens.md Replay):
// - an alert fills at its recorded price (the alert's `price`), or, without one, at the open of
//   the candle of its minute (the next candle when its minute has none); a limit alert fills at
//   its limit price at once. Alerts act at the start of their minute;
// - a position that opened in a minute is followed from its entry price to that minute's close;
//   every later minute through the candle path open → adverse extreme → favourable extreme →
//   close (rules/series.ts: the stop before the take-profit in the same minute);
// - fees: feeRate × notional on every fill (the app's taker rate); funding: at every funding
//   boundary a position is open over, notional at the candle's open × the rate stored for that
//   symbol and interval (funding_payments), else the configured rate; longs pay when positive;
// - a position still open at the end of the period closes at the last candle's close (fee included).
import { D } from "../decimal.ts";
import type { AdvancedControls } from "../orders/controls.ts";
import { applyFill } from "../orders/net-position.ts";
import { sizeSignalOrder } from "../orders/sizing.ts";
import { capToMaxPosition } from "../orders/strategy.ts";
import { planTargetOrder } from "../orders/target.ts";
import { type EquityPoint, type FundingEntry, downsample, equityCurve, maxDrawdown } from "../performance/charts.ts";
import { type ExecutedFill, FifoBook, type RealizedMatch } from "../pnl/fifo.ts";
import type { ProductSpec } from "../products.ts";
import type { RulePosition } from "../rules/engine.ts";
import { type SeriesFill, actionLevels, candlePath, walkPath } from "../rules/series.ts";
import { parseRuleState } from "../rules/state.ts";
import type { TradingConfig } from "../schemas/trading-config.ts";
import type { PositionTarget } from "../schemas/webhook-signal.ts";

export const MINUTE_MS = 60_000;

export type ReplaySizing = Pick<
  TradingConfig,
  "orderSizeMultiplier" | "applyAmountControlToSignals" | "signalAmountType" | "signalAmountValue"
>;

export interface ReplayAlert {
  id: string;
  symbol: string;
  action: "buy" | "sell";
  orderType: string;
  quantity: string;
  /** The alert's recorded price (null: none sent). */
  price: string | null;
  /** When it fired (signal_time, else received), epoch ms. */
  at: number;
  /** A target-position alert (issue 12): where the position should be after it. */
  target: PositionTarget | null;
  /** How the pipeline sizes it: the trading config's, or its strategy's (strategyConfig). */
  sizing: ReplaySizing;
  leverage: number;
  /** The strategy's max position size (null: none). */
  maxPositionSize: string | null;
}

export interface ReplayCandle {
  /** The minute's start, epoch ms. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

export type ReplayProduct = ProductSpec & { contractSize?: string | null };

export interface ReplayMarket {
  /** Per symbol, oldest first. */
  candles: ReadonlyMap<string, readonly ReplayCandle[]>;
  products: ReadonlyMap<string, ReplayProduct>;
  /** The taker fee rate every fill pays. */
  feeRate: string;
  funding: {
    intervalMs: number;
    /** The configured rate, for an interval with no stored one. */
    defaultRate: string;
    /** Stored rates by `${symbol}|${intervalStart}`. */
    rates: ReadonlyMap<string, string>;
  };
  /** The balance a percentage sizing takes its share of. */
  balance: string;
}

export interface ReplayPeriod {
  from: number;
  to: number;
}

export interface ReplayFill extends ExecutedFill {
  /** entry (an alert that opened or added), exit (an alert that reduced), tp1.., sl, trail, end. */
  kind: string;
}

export interface ReplayRun {
  fills: ReplayFill[];
  matches: RealizedMatch[];
  funding: FundingEntry[];
  /** Positions opened (each flip opens one). */
  positions: number;
  /** Per take-profit level: the positions where it filled. */
  tpHits: number[];
  /** Alerts that traded nothing, with the reason (below the minimum, no price, already at the target). */
  skipped: { id: string; reason: string }[];
}

interface SimPosition extends RulePosition {
  /** The minute of its latest entry fill, and that fill's price (the entry minute's path starts there). */
  enteredMinute: number;
  enteredPrice: string;
  /** The next funding boundary it pays at. */
  nextFunding: number;
  /** Fees paid on its entries (what break-even covers, decision 046). */
  entryFees: string;
}

const EPS = 1e-9;

/**
 * Whether the candle cannot change anything the rules decide: no level inside its range, and
 * no new best price for an armed trailing stop. (maxDrawdown, which the replay does not
 * report, is the only thing left unfollowed.) Numbers only rule candles OUT with a margin;
 * whatever is near a level goes through the exact decimal walk.
 */
function quiet(position: SimPosition, candle: ReplayCandle, previousClose: string | null): boolean {
  // From the previous close (a gap to the open crosses whatever lies between) to the extremes.
  const before = previousClose === null ? Number(candle.open) : Number(previousClose);
  const high = Math.max(Number(candle.high), before) * (1 + EPS);
  const low = Math.min(Number(candle.low), before) * (1 - EPS);
  for (const level of actionLevels(position).numbers) if (level >= low && level <= high) return false;
  if (position.trailingStopActive) {
    const best = Number(position.trailingBestPrice ?? Number.NaN);
    if (!(position.side === "long" ? high < best : low > best)) return false;
  }
  return true;
}

/** Replays the alerts with one set of protection rules. */
export function replayRules(
  alerts: readonly ReplayAlert[],
  market: ReplayMarket,
  controls: AdvancedControls | null,
  period: ReplayPeriod,
): ReplayRun {
  const run: ReplayRun = { fills: [], matches: [], funding: [], positions: 0, tpHits: [], skipped: [] };
  const levelCount = controls?.takeProfits?.length ?? 0;
  run.tpHits = new Array(levelCount).fill(0);
  const bySymbol = new Map<string, ReplayAlert[]>();
  for (const alert of alerts) {
    if (alert.at < period.from || alert.at > period.to) continue;
    const list = bySymbol.get(alert.symbol) ?? [];
    list.push(alert);
    bySymbol.set(alert.symbol, list);
  }
  let seq = 0;
  const book = new FifoBook();
  for (const symbol of [...bySymbol.keys()].sort()) {
    const list = bySymbol.get(symbol)!.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const product = market.products.get(symbol);
    if (!product) {
      for (const alert of list) run.skipped.push({ id: alert.id, reason: `Unknown symbol ${symbol}` });
      continue;
    }
    const candles = (market.candles.get(symbol) ?? []).filter(
      (c) => c.time >= period.from - (period.from % MINUTE_MS) && c.time <= period.to,
    );
    let position: SimPosition | null = null;
    let clock = Number.NEGATIVE_INFINITY;
    let lastClose: { price: string; time: number } | null = null; // the previous candle's close

    const fill = (side: "buy" | "sell", quantity: string, price: string, at: number, kind: string) => {
      clock = Math.max(clock + 1, at);
      const fee = D(quantity).times(price).times(market.feeRate).toString();
      const f: ReplayFill = {
        id: `r${String(++seq).padStart(7, "0")}`,
        symbol,
        side,
        quantity,
        price,
        fee,
        executedAt: clock,
        kind,
      };
      run.fills.push(f);
      run.matches.push(...book.apply(f));
      return D(fee);
    };
    const closedOut = (p: SimPosition) => {
      for (const level of parseRuleState(p.ruleState).tpFilled) if (level < levelCount) run.tpHits[level]!++;
    };
    const ruleFill = (p: SimPosition, at: number) => (f: SeriesFill, point: number) =>
      fill(p.side === "long" ? "sell" : "buy", f.quantity, f.price, at + point * 15_000, f.name);
    const walk = (path: string[], at: number) => {
      const p = position!;
      const costs = {
        entryFee: p.entryFees,
        quantity: p.quantity,
        exitFeeRate: market.feeRate,
        tick: product.quoteIncrement,
      };
      const next = walkPath(p, path, product, ruleFill(p, at), costs);
      if (D(next.remainingQuantity).lte(0)) {
        closedOut(next);
        position = null;
      } else position = next; // stepSeries keeps the position's own fields (entered*, nextFunding)
    };

    const act = (alert: ReplayAlert, candle: ReplayCandle | null) => {
      const price = alert.price ?? candle?.open ?? null;
      if (price === null || D(price).lte(0))
        return run.skipped.push({ id: alert.id, reason: "No price: no recorded price and no candle" });
      const current = position
        ? D(position.remainingQuantity)
            .times(position.side === "long" ? 1 : -1)
            .toString()
        : "0";
      let order: { side: "buy" | "sell"; quantity: string };
      if (alert.target) {
        const target =
          alert.maxPositionSize && D(alert.target.size).gt(alert.maxPositionSize)
            ? { ...alert.target, size: alert.maxPositionSize }
            : alert.target;
        const plan = planTargetOrder({
          target,
          position: position ? { side: position.side, quantity: position.remainingQuantity } : null,
          pending: [],
          product,
        });
        if (!plan.order) return run.skipped.push({ id: alert.id, reason: plan.reason });
        order = plan.order;
      } else {
        const sized = sizeSignalOrder({
          signalQuantity: alert.quantity,
          config: alert.sizing,
          product,
          price,
          available: market.balance,
          leverage: alert.leverage,
        });
        if (!sized.ok) return run.skipped.push({ id: alert.id, reason: sized.error });
        const capped = capToMaxPosition({
          current,
          side: alert.action,
          quantity: sized.quantity,
          max: alert.maxPositionSize,
          product,
        });
        if (capped.quantity === null) return run.skipped.push({ id: alert.id, reason: capped.reason });
        order = { side: alert.action, quantity: capped.quantity };
      }
      const before: SimPosition | null = position;
      const effect = applyFill(
        before
          ? {
              side: before.side,
              quantity: before.quantity,
              remaining: before.remainingQuantity,
              entryPrice: before.entryPrice,
            }
          : null,
        { ...order, price },
      );
      const fee = fill(order.side, order.quantity, price, alert.at, effect.reduced ? "exit" : "entry");
      const minute = alert.at - (alert.at % MINUTE_MS);
      if (before && effect.reduced) {
        if (effect.position && !effect.position.isNew)
          position = { ...before, remainingQuantity: effect.position.remaining };
        else {
          closedOut(before);
          position = null;
        }
      } else if (before && effect.position && !effect.position.isNew) {
        position = {
          ...before,
          quantity: effect.position.quantity,
          remainingQuantity: effect.position.remaining,
          entryPrice: effect.position.entryPrice,
          enteredMinute: minute,
          enteredPrice: price,
          entryFees: fee.plus(before.entryFees).toString(),
        };
      }
      if (effect.position?.isNew) {
        run.positions++;
        position = {
          id: `replay-${alert.id}`,
          symbol,
          side: effect.position.side,
          quantity: effect.position.quantity,
          remainingQuantity: effect.position.remaining,
          entryPrice: effect.position.entryPrice,
          advancedControls: controls,
          breakEvenTriggered: false,
          trailingStopActive: false,
          trailingBestPrice: null,
          maxDrawdown: "0",
          ruleState: null,
          enteredMinute: minute,
          enteredPrice: price,
          nextFunding:
            market.funding.intervalMs > 0
              ? (Math.floor(alert.at / market.funding.intervalMs) + 1) * market.funding.intervalMs
              : Number.POSITIVE_INFINITY,
          // A flip's fill opened it with what was left after the close: its share of the fee.
          entryFees: effect.reduced
            ? fee.times(effect.position.quantity).div(order.quantity).toString()
            : fee.toString(),
        };
      }
    };

    const chargeFunding = (candle: ReplayCandle) => {
      const p = position;
      if (!p || market.funding.intervalMs <= 0) return;
      let next = p.nextFunding;
      while (next <= candle.time) {
        const rate = market.funding.rates.get(`${symbol}|${next}`) ?? market.funding.defaultRate;
        const notional = D(p.remainingQuantity).times(candle.open);
        const amount = notional.times(rate).times(p.side === "long" ? -1 : 1);
        if (!amount.eq(0)) run.funding.push({ at: Math.max(next, clock), amount: amount.toString() });
        next += market.funding.intervalMs;
      }
      if (next !== p.nextFunding) position = { ...p, nextFunding: next };
    };

    let a = 0;
    for (const candle of candles) {
      // Alerts of minutes without a candle before this one: at their price, else this candle's open.
      while (a < list.length && list[a]!.at < candle.time) {
        const alert = list[a++]!;
        act(alert, alert.price ? null : candle);
      }
      chargeFunding(candle);
      while (a < list.length && list[a]!.at < candle.time + MINUTE_MS) act(list[a++]!, candle);
      const p = position as SimPosition | null;
      if (p) {
        if (p.enteredMinute === candle.time) walk([p.enteredPrice, candle.close], candle.time);
        else if (!quiet(p, candle, lastClose?.price ?? null)) walk(candlePath(p.side, candle), candle.time);
      }
      lastClose = { price: candle.close, time: candle.time + MINUTE_MS - 1 };
    }
    while (a < list.length) act(list[a++]!, null);
    const open = position as SimPosition | null;
    if (open) {
      const price = lastClose?.price ?? open.enteredPrice;
      fill(
        open.side === "long" ? "sell" : "buy",
        open.remainingQuantity,
        price,
        Math.max(lastClose?.time ?? period.to, clock),
        "end",
      );
      closedOut(open);
      position = null;
    }
  }
  run.funding.sort((x, y) => x.at - y.at);
  return run;
}

export interface ReplaySummary {
  /** Net P&L: the matches' net (after fees) plus funding. */
  pnl: string;
  fees: string;
  funding: string;
  /** The deepest drop of the equity curve from its peak (0 or negative). */
  maxDrawdown: string;
  /** Closed trades: the ledger's matches (docs/pnl.md), wins = net > 0. */
  trades: number;
  wins: number;
  /** Percent, 2 decimals; null without trades. */
  winRate: string | null;
  positions: number;
  /** Per level: percent of the positions where it filled (2 decimals), null without positions. */
  tpHitRates: (string | null)[];
  tpHits: number[];
  /** The equity curve (realized, from 0 at the period's start), at most `maxPoints` points. */
  equity: Pick<EquityPoint, "at" | "equity" | "drawdown">[];
}

export function percent(part: number, whole: number): string | null {
  return whole > 0 ? D(part).times(100).div(whole).round(2).toFixed(2) : null;
}

/** The figures of a replay run, or of what really happened (the ledger's matches, booked funding, the positions' levels). */
export function summarize(input: {
  matches: readonly RealizedMatch[];
  funding: readonly FundingEntry[];
  fees?: string;
  positions: number;
  tpHits: number[];
  period: ReplayPeriod;
  maxPoints?: number;
}): ReplaySummary {
  const { period } = input;
  const matches = input.matches.filter((m) => m.exitTime >= period.from && m.exitTime <= period.to + MINUTE_MS);
  const funding = input.funding.filter((f) => f.at >= period.from && f.at <= period.to + MINUTE_MS);
  const curve = equityCurve({
    matches,
    funding,
    snapshots: [],
    since: period.from,
    now: period.to + MINUTE_MS,
    nowUnrealized: null,
  });
  const net = matches.reduce((acc, m) => acc.plus(m.netPnl), D(0));
  const fundingTotal = funding.reduce((acc, f) => acc.plus(f.amount), D(0));
  const fees = input.fees ?? matches.reduce((acc, m) => acc.plus(m.fees), D(0)).toString();
  const wins = matches.filter((m) => D(m.netPnl).gt(0)).length;
  const points = [
    { at: period.from, equity: "0", drawdown: "0" },
    ...curve.map((p) => ({ at: p.at, equity: p.equity, drawdown: p.drawdown })),
  ];
  return {
    pnl: net.plus(fundingTotal).toString(),
    fees: D(fees).toString(),
    funding: fundingTotal.toString(),
    maxDrawdown: maxDrawdown(curve),
    trades: matches.length,
    wins,
    winRate: percent(wins, matches.length),
    positions: input.positions,
    tpHitRates: input.tpHits.map((n) => percent(n, input.positions)),
    tpHits: input.tpHits,
    equity: downsample(points, input.maxPoints ?? 200),
  };
}

/** Replays and summarizes one rule set. */
export function replaySummary(
  alerts: readonly ReplayAlert[],
  market: ReplayMarket,
  controls: AdvancedControls | null,
  period: ReplayPeriod,
  maxPoints?: number,
) {
  const run = replayRules(alerts, market, controls, period);
  const fees = run.fills.reduce((acc, f) => acc.plus(f.fee), D(0)).toString();
  return {
    run,
    summary: summarize({
      matches: run.matches,
      funding: run.funding,
      fees,
      positions: run.positions,
      tpHits: run.tpHits,
      period,
      maxPoints,
    }),
  };
}
