// Strategy heartbeats (decision 028): the alarm's expectations and their state, for the
// Webhook Config and Strategies screens and /api/heartbeats.
export { DEFAULT_STRATEGY_KEY, listStrategyHeartbeats, setHeartbeatExpectation } from "#db/queries/heartbeats.ts";
