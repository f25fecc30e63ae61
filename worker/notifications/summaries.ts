// The texts of the daily summary and the Telegram commands (decision 030). Every P&L figure
// comes from the statistics service the screens read (one FIFO ledger, decision 020); nothing
// here computes P&L another way.
import type { Kysely } from "kysely";
import { toFixed } from "../../app/core/decimal.ts";
import { getClosedTradesPnl, getNetPnlSince } from "../../app/services/statistics.server.ts";
import { countFillsSince } from "../../db/queries/notifications.ts";
import { listOpenPositions } from "../../db/queries/positions.ts";
import { getEmergencyStop, getTradingConfig } from "../../db/queries/trading-state.ts";
import { listHeartbeats } from "../../db/queries/worker-heartbeats.ts";
import type { DB } from "../../db/schema.ts";

const DAY_MS = 86_400_000;
const money = (value: string) => {
  const fixed = toFixed(value, 2);
  return fixed.startsWith("-") ? `-$${fixed.slice(1)}` : `+$${fixed}`;
};

export async function positionsText(db: Kysely<DB>): Promise<string> {
  const open = await listOpenPositions(db);
  if (open.length === 0) return "No open positions.";
  const lines = open.map((p) => `• ${p.side.toUpperCase()} ${p.remainingQuantity} ${p.symbol} @ ${p.entryPrice}${p.stopPrice ? ` (stop ${p.stopPrice})` : ""}`);
  return `Open positions (${open.length}):\n${lines.join("\n")}`;
}

export async function pnlText(db: Kysely<DB>, now = Date.now()): Promise<string> {
  const [day, closed] = await Promise.all([getNetPnlSince(db, now - DAY_MS), getClosedTradesPnl(db)]);
  return `P&L (realized, net of fees)\nLast 24 h: ${money(day)}\nAll time: ${money(closed.totalPnL)} over ${closed.realizedMatches} closed matches`;
}

export async function statusText(db: Kysely<DB>, now = Date.now()): Promise<string> {
  const [stop, config, beats, open] = await Promise.all([getEmergencyStop(db), getTradingConfig(db), listHeartbeats(db), listOpenPositions(db)]);
  const alive = beats.filter((b) => b.status === "running" && now - b.lastBeatAt <= 15_000).length;
  return [
    `Emergency stop: ${stop.active ? "ON" : "off"}`,
    `Auto trading: ${config.autoTradingEnabled ? "on" : "off"}`,
    `Workers running: ${alive}`,
    `Open positions: ${open.length}`,
  ].join("\n");
}

export async function dailySummary(db: Kysely<DB>, now = Date.now()): Promise<{ title: string; body: string }> {
  const [day, fills, positions] = await Promise.all([getNetPnlSince(db, now - DAY_MS), countFillsSince(db, now - DAY_MS), positionsText(db)]);
  return {
    title: `Daily summary: ${money(day)} in the last 24 h, ${fills} fill${fills === 1 ? "" : "s"}`,
    body: `Realized P&L (net of fees, last 24 h): ${money(day)}\nFills: ${fills}\n${positions}`,
  };
}
