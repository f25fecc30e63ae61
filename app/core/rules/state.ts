// The rule state a position carries (positions.rule_state, JSON): which take-profit levels
// filled or were skipped, which closes the monitor has requested and not yet seen fill, and
// how many times each trigger was requested (the suffix of its job key). Written only under
// the position's symbol lock (the monitor when it requests, bookOrder when a close fills,
// the close-position task when a close could not be sent).
// Protection never silently ends (issue 21, defect 6): a trigger whose closes keep failing
// backs off (RULE_BACKOFF_MS) and is requested again; the MAX_RULE_FAILURES-th failure in a
// row of a kind raises one alarm (worker/tasks/close-position.ts). A close that fills, or a
// change of the position's remaining quantity, starts the count again.
// docs/decisions/008-position-rules.md.
import { D, parseDecimal } from "../decimal.ts";

export type RuleTrigger = "tp" | "sl" | "trail";

export interface RuleRequest {
  /** The close-position job that carries this close. */
  jobId: number;
  trigger: RuleTrigger;
  /** Take-profit level indexes (0-based, in the position's takeProfits array) this close takes. */
  levels: number[];
  /** A decimal quantity, or "all" (whatever remains when the close is sent). */
  quantity: string;
}

export interface RuleState {
  /** Take-profit levels whose close filled. */
  tpFilled: number[];
  /** Levels reached whose share rounded below the product's minimum size: left for the last level. */
  tpSkipped: number[];
  /** Closes requested and not yet filled, by trigger name ("tp2", "sl", "trail"). */
  requested: Record<string, RuleRequest>;
  /** Per trigger name: how many requests were released (failed, or filled with the position still open). */
  attempts: Record<string, number>;
  /**
   * Per kind ("tp", "sl", "trail"): closes in a row the exchange refused (a close of
   * everything refused for its size included) or whose job failed for good. Never disables a
   * rule: it sets the back-off. Cleared by a fill of that kind.
   */
  failures: Record<string, number>;
  /**
   * Per trigger name: epoch ms before which it is not requested again (the back-off after a
   * failed close). Absent when empty.
   */
  holdUntil?: Record<string, number>;
  /**
   * Per kind: the position's remaining quantity when its failures were counted. Another
   * remaining quantity (the position changed) starts the count and the back-off again.
   * Absent when empty (and in rows written before it: their count goes on).
   */
  failedAt?: Record<string, string>;
  /**
   * The break-even stop, computed when break-even armed (rules/breakeven.ts: entry + fees +
   * offset, decision 046). Absent before it armed (and in rows armed before it existed).
   */
  breakEvenStop?: string;
}

/**
 * The wait after the 1st, 2nd, 3rd ... failed close of a kind in a row before its trigger is
 * requested again: 5 s, 15 s, 60 s, 2 min, then every 5 min (the last value repeats).
 */
export const RULE_BACKOFF_MS: readonly number[] = [5_000, 15_000, 60_000, 120_000, 300_000];

/** The back-off after `failures` failed closes in a row. */
export const ruleBackoffMs = (failures: number) =>
  RULE_BACKOFF_MS[Math.min(Math.max(failures, 1), RULE_BACKOFF_MS.length) - 1]!;

/** On this many failed closes of one kind in a row, ONE error-level alarm: protection is retrying, a person should look. */
export const MAX_RULE_FAILURES = 3;

/** The kind of a trigger name ("tp2" -> tp). */
export const triggerKind = (name: string): RuleTrigger => (name === "sl" || name === "trail" ? name : "tp");

const ints = (value: unknown): number[] =>
  Array.isArray(value)
    ? [...new Set(value.filter((v): v is number => Number.isInteger(v) && v >= 0))].sort((a, b) => a - b)
    : [];

/** Normalises whatever is stored (null, {}, an older shape) into a RuleState. */
export function parseRuleState(raw: unknown): RuleState {
  const source = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const requested: Record<string, RuleRequest> = {};
  const rawRequested =
    source.requested && typeof source.requested === "object" ? (source.requested as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(rawRequested)) {
    const r = value as Partial<RuleRequest> | null;
    if (!r || typeof r !== "object" || !Number.isInteger(r.jobId)) continue;
    const trigger: RuleTrigger = r.trigger === "sl" || r.trigger === "trail" ? r.trigger : "tp";
    requested[name] = {
      jobId: r.jobId!,
      trigger,
      levels: ints(r.levels),
      quantity: typeof r.quantity === "string" ? r.quantity : "all",
    };
  }
  const attempts: Record<string, number> = {};
  const rawAttempts =
    source.attempts && typeof source.attempts === "object" ? (source.attempts as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(rawAttempts))
    if (Number.isInteger(value) && (value as number) > 0) attempts[name] = value as number;
  const failures: Record<string, number> = {};
  const rawFailures =
    source.failures && typeof source.failures === "object" ? (source.failures as Record<string, unknown>) : {};
  for (const [kind, value] of Object.entries(rawFailures))
    if (Number.isInteger(value) && (value as number) > 0) failures[kind] = value as number;
  const holdUntil: Record<string, number> = {};
  const rawHold =
    source.holdUntil && typeof source.holdUntil === "object" ? (source.holdUntil as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(rawHold))
    if (typeof value === "number" && Number.isFinite(value) && value > 0) holdUntil[name] = value;
  const failedAt: Record<string, string> = {};
  const rawFailedAt =
    source.failedAt && typeof source.failedAt === "object" ? (source.failedAt as Record<string, unknown>) : {};
  for (const [kind, value] of Object.entries(rawFailedAt))
    if (typeof value === "string" && value !== "") failedAt[kind] = value;
  const state: RuleState = {
    tpFilled: ints(source.tpFilled),
    tpSkipped: ints(source.tpSkipped),
    requested,
    attempts,
    failures,
  };
  if (Object.keys(holdUntil).length > 0) state.holdUntil = holdUntil;
  if (Object.keys(failedAt).length > 0) state.failedAt = failedAt;
  if (typeof source.breakEvenStop === "string" && parseDecimal(source.breakEvenStop) !== null)
    state.breakEvenStop = source.breakEvenStop;
  return state;
}

export const emptyRuleState = (): RuleState => ({
  tpFilled: [],
  tpSkipped: [],
  requested: {},
  attempts: {},
  failures: {},
});

/** Whether the kind's failures were counted at another remaining quantity (the position changed since). */
function positionChanged(state: RuleState, kind: RuleTrigger, remaining: string | undefined): boolean {
  const at = state.failedAt?.[kind];
  if (at === undefined || remaining === undefined) return false;
  const a = parseDecimal(at);
  const b = parseDecimal(remaining);
  return a !== null && b !== null ? !D(a).eq(b) : at !== remaining;
}

/** The job key of a trigger's next request: rule:<positionId>:<name>, then :2, :3 ... after releases. */
export function ruleJobKey(positionId: string, name: string, state: RuleState): string {
  const released = state.attempts[name] ?? 0;
  return released > 0 ? `rule:${positionId}:${name}:${released + 1}` : `rule:${positionId}:${name}`;
}

/** The request a job carries, with its trigger name. */
export function findRequestByJob(state: RuleState, jobId: number): { name: string; request: RuleRequest } | null {
  for (const [name, request] of Object.entries(state.requested)) if (request.jobId === jobId) return { name, request };
  return null;
}

/**
 * A request that will not fill (job cancelled or failed, nothing sent): its trigger may fire
 * again, under a new key. `failed`: the close was refused or its job failed for good: one more
 * failure in a row for its kind (a new count when the position's `remaining` quantity is not
 * the one the count was kept at), and the trigger is held for ruleBackoffMs of that count from
 * `now`. A cancellation (emergency stop) or "nothing left to close" does not count.
 */
export function releaseRequest(
  state: RuleState,
  name: string,
  options: {
    failed?: boolean /** The position's remaining quantity now. */;
    remaining?: string /** Epoch ms (default: the clock). */;
    now?: number;
  } = {},
): RuleState {
  const request = state.requested[name];
  const requested = { ...state.requested };
  delete requested[name];
  const next: RuleState = {
    ...state,
    requested,
    attempts: { ...state.attempts, [name]: (state.attempts[name] ?? 0) + 1 },
  };
  if (!options.failed || !request) return next;
  const kind = request.trigger;
  const count = (positionChanged(state, kind, options.remaining) ? 0 : (state.failures[kind] ?? 0)) + 1;
  const now = options.now ?? Date.now();
  next.failures = { ...state.failures, [kind]: count };
  const holds = Object.fromEntries(Object.entries(state.holdUntil ?? {}).filter(([, until]) => until > now)); // expired holds dropped
  next.holdUntil = { ...holds, [name]: now + ruleBackoffMs(count) };
  if (options.remaining !== undefined) next.failedAt = { ...state.failedAt, [kind]: options.remaining };
  return next;
}

/**
 * Whether a trigger is backing off at `now`. Given the position's `remaining` quantity, a hold
 * kept at another remaining quantity (the position changed since) no longer applies.
 */
export const ruleHeld = (state: RuleState, name: string, now: number, remaining?: string) =>
  (state.holdUntil?.[name] ?? 0) > now && !positionChanged(state, triggerKind(name), remaining);

/** The kind's failures and its triggers' holds forgotten (a close of that kind filled). */
function clearFailures(state: RuleState, kind: RuleTrigger): RuleState {
  const next: RuleState = { ...state, failures: { ...state.failures } };
  delete next.failures[kind];
  if (state.holdUntil) {
    const holds = Object.fromEntries(Object.entries(state.holdUntil).filter(([name]) => triggerKind(name) !== kind));
    if (Object.keys(holds).length > 0) next.holdUntil = holds;
    else delete next.holdUntil;
  }
  if (state.failedAt) {
    const failedAt = { ...state.failedAt };
    delete failedAt[kind];
    if (Object.keys(failedAt).length > 0) next.failedAt = failedAt;
    else delete next.failedAt;
  }
  return next;
}

/**
 * A request whose close filled: take-profit levels become filled; a stop or trailing close
 * is released (should the position still be open, e.g. extended meanwhile, it may fire again).
 * Its kind's failures in a row and back-off end.
 */
export function fillRequest(state: RuleState, name: string): RuleState {
  const request = state.requested[name];
  if (!request) return state;
  const cleared = clearFailures(state, request.trigger);
  if (request.trigger === "tp") {
    const requested = { ...cleared.requested };
    delete requested[name];
    return { ...cleared, requested, tpFilled: ints([...state.tpFilled, ...request.levels]) };
  }
  return releaseRequest(cleared, name);
}

/** The monitor's bookkeeping when it enqueues a close: the levels and quantity are now requested. */
export function recordRequest(
  state: RuleState,
  action: { name: string; trigger: RuleTrigger; levels: number[]; quantity: string },
  jobId: number,
): RuleState {
  return {
    ...state,
    requested: {
      ...state.requested,
      [action.name]: { jobId, trigger: action.trigger, levels: [...action.levels], quantity: action.quantity },
    },
  };
}

/** Levels reached whose share was too small to close: never requested again. */
export function recordSkipped(state: RuleState, levels: number[]): RuleState {
  return { ...state, tpSkipped: ints([...state.tpSkipped, ...levels]) };
}
