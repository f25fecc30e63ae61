// The position-protection rules engine: pure decimal logic shared by the worker's monitor,
// the close-position task, bookOrder and the positions service.
export * from "./engine.ts";
export * from "./state.ts";
export * from "./close.ts";
export * from "./apply.ts";
export * from "./contracts.ts";
export * from "./breakeven.ts";
