// Missed-alert detection (issue 12): a strategy's expected heartbeat and its state; db/queries/heartbeats.ts stores them.

/** The strategy key of the global webhook secret. */
export const DEFAULT_STRATEGY_KEY = "default";

export type HeartbeatState = "waiting" | "ok" | "missed";

export interface StrategyHeartbeat {
  strategyKey: string;
  /** The strategy's name ("default" for the global secret). */
  name: string;
  intervalSeconds: number;
  graceSeconds: number;
  lastAt: number | null;
  state: HeartbeatState;
  missedSince: number | null;
  /** When it turns missed if nothing comes (epoch ms). */
  dueAt: number;
}
