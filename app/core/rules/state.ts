// The rule state a position carries (positions.rule_state, JSON): which take-profit levels
// filled or were skipped, which closes the monitor has requested and not yet seen fill, and
// how many times each trigger was requested (the suffix of its job key). Written only under
// the position's symbol lock (the monitor when it requests, bookOrder when a close fills,
// the close-position task when a close could not be sent).

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
  /** Per kind ("tp", "sl", "trail"): closes the exchange refused or whose job failed for good. */
  failures: Record<string, number>;
  /**
   * Per trigger name: epoch ms before which it is not requested again. Set when a close of
   * everything was refused for its SIZE (never counted as a failure, decision 025): it is
   * tried again, re-sized, but not on every tick. Absent when empty.
   */
  holdUntil?: Record<string, number>;
}

/** How long a close of everything refused for its size waits before it is requested again. */
export const SIZE_REFUSAL_HOLD_MS = 30_000;

/** After this many failed closes of one kind the rule stops firing (a person must look): no hot loop of refused orders. */
export const MAX_RULE_FAILURES = 3;

const ints = (value: unknown): number[] =>
  Array.isArray(value) ? [...new Set(value.filter((v): v is number => Number.isInteger(v) && v >= 0))].sort((a, b) => a - b) : [];

/** Normalises whatever is stored (null, {}, an older shape) into a RuleState. */
export function parseRuleState(raw: unknown): RuleState {
  const source = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const requested: Record<string, RuleRequest> = {};
  const rawRequested = source.requested && typeof source.requested === "object" ? (source.requested as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(rawRequested)) {
    const r = value as Partial<RuleRequest> | null;
    if (!r || typeof r !== "object" || !Number.isInteger(r.jobId)) continue;
    const trigger: RuleTrigger = r.trigger === "sl" || r.trigger === "trail" ? r.trigger : "tp";
    requested[name] = { jobId: r.jobId!, trigger, levels: ints(r.levels), quantity: typeof r.quantity === "string" ? r.quantity : "all" };
  }
  const attempts: Record<string, number> = {};
  const rawAttempts = source.attempts && typeof source.attempts === "object" ? (source.attempts as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(rawAttempts)) if (Number.isInteger(value) && (value as number) > 0) attempts[name] = value as number;
  const failures: Record<string, number> = {};
  const rawFailures = source.failures && typeof source.failures === "object" ? (source.failures as Record<string, unknown>) : {};
  for (const [kind, value] of Object.entries(rawFailures)) if (Number.isInteger(value) && (value as number) > 0) failures[kind] = value as number;
  const holdUntil: Record<string, number> = {};
  const rawHold = source.holdUntil && typeof source.holdUntil === "object" ? (source.holdUntil as Record<string, unknown>) : {};
  for (const [name, value] of Object.entries(rawHold)) if (typeof value === "number" && Number.isFinite(value) && value > 0) holdUntil[name] = value;
  const state: RuleState = { tpFilled: ints(source.tpFilled), tpSkipped: ints(source.tpSkipped), requested, attempts, failures };
  if (Object.keys(holdUntil).length > 0) state.holdUntil = holdUntil;
  return state;
}

export const emptyRuleState = (): RuleState => ({ tpFilled: [], tpSkipped: [], requested: {}, attempts: {}, failures: {} });

/** Whether rules of this kind still fire (fewer than MAX_RULE_FAILURES failed closes). */
export const ruleKindActive = (state: RuleState, kind: RuleTrigger) => (state.failures[kind] ?? 0) < MAX_RULE_FAILURES;

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
 * again, under a new key. `failed`: the close was refused or its job failed for good (counts
 * towards MAX_RULE_FAILURES for its kind); a cancellation (emergency stop) or "nothing left
 * to close" does not count.
 */
export function releaseRequest(state: RuleState, name: string, options: { failed?: boolean; /** Not requested again before this epoch ms. */ holdUntil?: number } = {}): RuleState {
  const request = state.requested[name];
  const requested = { ...state.requested };
  delete requested[name];
  const failures = options.failed && request ? { ...state.failures, [request.trigger]: (state.failures[request.trigger] ?? 0) + 1 } : state.failures;
  const next: RuleState = { ...state, requested, attempts: { ...state.attempts, [name]: (state.attempts[name] ?? 0) + 1 }, failures };
  if (options.holdUntil !== undefined) next.holdUntil = { ...state.holdUntil, [name]: options.holdUntil };
  return next;
}

/** Whether a trigger is held (a size refusal's wait) at `now`. */
export const ruleHeld = (state: RuleState, name: string, now: number) => (state.holdUntil?.[name] ?? 0) > now;

/**
 * A request whose close filled: take-profit levels become filled; a stop or trailing close
 * is released (should the position still be open, e.g. extended meanwhile, it may fire again).
 */
export function fillRequest(state: RuleState, name: string): RuleState {
  const request = state.requested[name];
  if (!request) return state;
  if (request.trigger === "tp") {
    const requested = { ...state.requested };
    delete requested[name];
    return { ...state, requested, tpFilled: ints([...state.tpFilled, ...request.levels]) };
  }
  return releaseRequest(state, name);
}

/** The monitor's bookkeeping when it enqueues a close: the levels and quantity are now requested. */
export function recordRequest(
  state: RuleState,
  action: { name: string; trigger: RuleTrigger; levels: number[]; quantity: string },
  jobId: number,
): RuleState {
  return {
    ...state,
    requested: { ...state.requested, [action.name]: { jobId, trigger: action.trigger, levels: [...action.levels], quantity: action.quantity } },
  };
}

/** Levels reached whose share was too small to close: never requested again. */
export function recordSkipped(state: RuleState, levels: number[]): RuleState {
  return { ...state, tpSkipped: ints([...state.tpSkipped, ...levels]) };
}
