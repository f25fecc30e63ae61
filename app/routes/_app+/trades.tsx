// /trades: one of the four paths of the Trade History screen (docs/spec/screens.md: /history, /trade-history,
// /trades, /signals), served by /history's route module.
export { ErrorBoundary, default, loader, meta } from "./history.tsx";
