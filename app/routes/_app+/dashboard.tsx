// /dashboard: the Dashboard at its second path (docs/spec/screens.md: / and /dashboard), served by /'s
// route module (its forms post here: the emergency stop, the manual order).
export { ErrorBoundary, action, default, loader, meta } from "./_index.tsx";
