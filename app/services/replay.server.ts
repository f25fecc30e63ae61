// The what-if replay (issue 25, docs/decisions/047-replay.md) for the Replay screen and
// POST /api/replay alike: reads the period's recorded alerts, candles and funding rates, runs
// the pure replay (app/core/replay/replay.ts) once per rule set, and puts beside it what
// really happened: the same figures from the one P&L ledger (docs/pnl.md). Reads only.
import type { Kysely } from "kysely";
import { D } from "#app/core/decimal.ts";
import { EnvSchema } from "#app/core/env.ts";
import type { AdvancedControls } from "#app/core/orders/controls.ts";
import { strategyConfig } from "#app/core/orders/strategy.ts";
import type { FundingEntry } from "#app/core/performance/charts.ts";
import {
  type ReplayAlert,
  type ReplayCandle,
  type ReplayMarket,
  type ReplayProduct,
  type ReplaySummary,
  replaySummary,
  summarize,
} from "#app/core/replay/replay.ts";
import { takerFeeRate } from "#app/core/rules/breakeven.ts";
import { parseRuleState } from "#app/core/rules/state.ts";
import {
  type ReplayRequest,
  defaultReplayRequest,
  describeRuleSet,
  replayPeriod,
  ruleSetControls,
} from "#app/core/schemas/replay.ts";
import { DEFAULT_STRATEGY_ID } from "#app/core/schemas/strategy.ts";
import { storedPositionTarget } from "#app/core/schemas/webhook-signal.ts";
import { createTradingProductResolver } from "#exchange/trading-product.ts";
import { listCandleRange } from "#db/queries/candles.ts";
import { listReplaySignals } from "#db/queries/signals.ts";
import { listLotOwners, listStrategies } from "#db/queries/strategies.ts";
import { getTradingConfig } from "#db/queries/trading-state.ts";
import type { DB } from "#db/schema.ts";
import { getStatsLedger } from "./statistics.server.ts";

/** What a percentage sizing takes its share of in the replay (a fixed figure: the same input gives the same sizes). */
export const REPLAY_BALANCE = "10000";
/** Points of each equity curve sent to the screen. */
const CURVE_POINTS = 200;

export interface ReplayColumn {
  /** "Real", "Rule set 1" ... */
  name: string;
  /** The rules in a line ("TP 0.5/1/1.5 % · SL 0.5 % · BE"); null for the real column. */
  rules: string | null;
  summary: ReplaySummary;
}

export interface ReplayResult {
  period: { from: string; to: string };
  strategy: string;
  /** Alerts replayed (executed by the pipeline in the period), and per rule set those that traded nothing. */
  alerts: number;
  feeRate: string;
  funding: { rate: string; intervalSeconds: number; storedRates: number };
  real: ReplayColumn;
  sets: (ReplayColumn & { skipped: number })[];
  /** Milliseconds the replay took (reads and computation). */
  tookMs: number;
}

/** Thrown for a request the data cannot answer (an unknown strategy): the message is for the user. */
export class ReplayInputError extends Error {}

function fundingSettings(env: Record<string, string | undefined> = process.env) {
  const blank = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);
  return {
    rate: EnvSchema.shape.SIM_FUNDING_RATE.parse(blank(env.SIM_FUNDING_RATE)),
    intervalMs: EnvSchema.shape.SIM_FUNDING_INTERVAL_SECONDS.parse(blank(env.SIM_FUNDING_INTERVAL_SECONDS)) * 1000,
  };
}

/** The Replay screen's form before a post: the defaults from the Trading Rules and the strategies to choose from. */
export async function replayFormData(db: Kysely<DB>, now = Date.now()) {
  const [config, strategies] = await Promise.all([getTradingConfig(db), listStrategies(db)]);
  return {
    defaults: defaultReplayRequest(config, now),
    strategies: strategies.map((s) => ({ id: s.id, name: s.name })),
  };
}

export async function runReplay(db: Kysely<DB>, request: ReplayRequest, now = Date.now()): Promise<ReplayResult> {
  const started = performance.now();
  const period = replayPeriod(request, now);
  const strategyFilter = request.strategy === "all" ? null : request.strategy;
  const [config, strategies] = await Promise.all([getTradingConfig(db), listStrategies(db)]);
  const byId = new Map(strategies.map((s) => [s.id, s]));
  if (strategyFilter && strategyFilter !== DEFAULT_STRATEGY_ID && !byId.has(strategyFilter))
    throw new ReplayInputError("Unknown strategy");

  const signals = (await listReplaySignals(db, { ...period, strategy: strategyFilter })).filter(
    (s) => s.payload.test !== true,
  );
  const products = createTradingProductResolver(db);
  const productOf = new Map<string, ReplayProduct>();
  for (const symbol of [...new Set(signals.map((s) => s.symbol))].sort()) {
    const product = await products.product(symbol);
    if (product) productOf.set(symbol, product);
  }
  const alerts: ReplayAlert[] = signals.map((s) => {
    const strategy = s.strategyId ? (byId.get(s.strategyId) ?? null) : null;
    const sizing = strategy ? strategyConfig(config, strategy) : config;
    const leverageField = Number((s.payload as { leverage?: unknown }).leverage);
    const leverage = strategy
      ? strategy.leverage
      : config.applyLeverageToSignals && Number.isInteger(leverageField) && leverageField >= 1 && leverageField <= 10
        ? leverageField
        : 1;
    return {
      id: s.id,
      symbol: s.symbol,
      action: s.action,
      orderType: s.orderType,
      quantity: s.quantity,
      price: s.price,
      at: Date.parse(s.signalTime ?? s.createdAt),
      target: storedPositionTarget(s.payload),
      sizing,
      leverage,
      maxPositionSize: strategy?.maxPositionSize ?? null,
    };
  });

  // Candles of the alerts' symbols over the period (and the funding rates stored for it).
  const candles = new Map<string, ReplayCandle[]>();
  for (const symbol of productOf.keys()) candles.set(symbol, await listCandleRange(db, symbol, period));
  const fundingRows = await db
    .selectFrom("funding_payments")
    .select(["symbol", "interval_start", "rate"])
    .where("interval_start", ">=", period.from)
    .where("interval_start", "<=", period.to)
    .execute();
  const rates = new Map<string, string>();
  for (const row of fundingRows) rates.set(`${row.symbol}|${Number(row.interval_start)}`, D(row.rate).toString());
  const settings = fundingSettings();
  const feeRate = takerFeeRate("simulator");
  const market: ReplayMarket = {
    candles,
    products: productOf,
    feeRate,
    funding: { intervalMs: settings.intervalMs, defaultRate: settings.rate, rates },
    balance: REPLAY_BALANCE,
  };

  const sets: ReplayResult["sets"] = [];
  request.sets.forEach((set, i) => {
    if (!set.enabled) return;
    const controls: AdvancedControls = ruleSetControls(set);
    const { run, summary } = replaySummary(alerts, market, controls, period, CURVE_POINTS);
    sets.push({ name: `Rule set ${i + 1}`, rules: describeRuleSet(controls), summary, skipped: run.skipped.length });
  });

  return {
    period: { from: new Date(period.from).toISOString(), to: new Date(period.to).toISOString() },
    strategy: request.strategy,
    alerts: alerts.length,
    feeRate,
    funding: { rate: settings.rate, intervalSeconds: settings.intervalMs / 1000, storedRates: rates.size },
    real: { name: "Real", rules: null, summary: await realSummary(db, period, strategyFilter) },
    sets,
    tookMs: Math.round(performance.now() - started),
  };
}

/**
 * What really happened: the ledger's matches closed in the period whose lot an alert opened
 * (of the strategy, or of any strategy and the global secret; manual orders are left out as
 * the replay leaves them out), the funding booked on those positions, and the take-profit
 * levels filled on the positions alerts opened in the period.
 */
async function realSummary(
  db: Kysely<DB>,
  period: { from: number; to: number },
  strategy: string | null,
): Promise<ReplaySummary> {
  const [ledger, owners] = await Promise.all([getStatsLedger(db), listLotOwners(db)]);
  const wanted = (owner: string | null | undefined) =>
    owner == null ? false : strategy === null ? true : owner === strategy;
  const matches = ledger
    .matchesFrom(ledger.windowStart(period.from))
    .filter((m) => m.exitTime <= period.to && wanted(owners.get(m.entryTradeId)));

  let fundingQuery = db
    .selectFrom("funding_payments")
    .innerJoin("positions", "positions.id", "funding_payments.position_id")
    .select(["funding_payments.amount as amount", "funding_payments.created_at as at"])
    .where("funding_payments.created_at", ">=", period.from)
    .where("funding_payments.created_at", "<=", period.to);
  let positionsQuery = db
    .selectFrom("positions")
    .select(["advanced_controls", "rule_state"])
    .where("created_at", ">=", period.from)
    .where("created_at", "<=", period.to);
  if (strategy === null) {
    fundingQuery = fundingQuery.where((eb) =>
      eb.or([eb("positions.strategy_id", "is not", null), eb("positions.source", "=", "signal")]),
    );
    positionsQuery = positionsQuery.where((eb) =>
      eb.or([eb("strategy_id", "is not", null), eb("source", "=", "signal")]),
    );
  } else if (strategy === DEFAULT_STRATEGY_ID) {
    fundingQuery = fundingQuery.where("positions.strategy_id", "is", null).where("positions.source", "=", "signal");
    positionsQuery = positionsQuery.where("strategy_id", "is", null).where("source", "=", "signal");
  } else {
    fundingQuery = fundingQuery.where("positions.strategy_id", "=", strategy);
    positionsQuery = positionsQuery.where("strategy_id", "=", strategy);
  }
  const [fundingRows, positionRows] = await Promise.all([fundingQuery.execute(), positionsQuery.execute()]);
  const funding: FundingEntry[] = fundingRows
    .map((r) => ({ amount: D(r.amount).toString(), at: Number(r.at) }))
    .sort((a, b) => a.at - b.at);
  const tpHits: number[] = [];
  for (const row of positionRows) {
    const controls = row.advanced_controls ? (JSON.parse(row.advanced_controls) as AdvancedControls | null) : null;
    const levels = controls?.takeProfits?.length ?? 0;
    while (tpHits.length < levels) tpHits.push(0);
    for (const level of parseRuleState(row.rule_state ? JSON.parse(row.rule_state) : null).tpFilled)
      if (level < tpHits.length) tpHits[level]!++;
  }
  return summarize({ matches, funding, positions: positionRows.length, tpHits, period, maxPoints: CURVE_POINTS });
}
