// Durations as text, shared by the screens (app/core/format.ts re-exports it) and by the
// performance statistics (app/core/pnl/performance-stats.ts).

/** avgTimeInTrade text (docs/spec/api.md#shapes): '0d. 0h. 0min. 0sec.'; negative durations read as 0. */
export function durationText(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${d}d. ${h}h. ${m}min. ${s}sec.`;
}
