// The texts of the daily summary and the Telegram commands (decision 030). Every P&L figure
// comes from the statistics service the screens read (one FIFO ledger, decision 020); nothing
// here computes P&L another way.
import type { Kysely } from "kysely";
import { toFixed } from "../../app/core/decimal.ts";
import { D } from "../../app/core/decimal.ts";
import { StatsLedger, keyBefore } from "../../app/core/pnl/ledger.ts";
import { fundingSince, listFundingAmounts } from "../../db/queries/funding.ts";
import { countFillsSince } from "../../db/queries/notifications.ts";
import { listExecutedFills } from "../../db/queries/statistics.ts";
import { listOpenPositions } from "../../db/queries/positions.ts";
import { getEmergencyStop, getTradingConfig } from "../../db/queries/trading-state.ts";
import { listHeartbeats } from "../../db/queries/worker-heartbeats.ts";
import type { DB } from "../../db/schema.ts";

const DAY_MS = 86_400_000;

/**
 * The P&L figures of the screens, from the same ledger class (app/core/pnl/ledger.ts) over the
 * same executed fills, funding added as the statistics service adds it (docs/pnl.md). Built
 * afresh: a summary or a command is rare, and the worker keeps no statistics cache.
 */
export async function ledgerPnl(
  db: Kysely<DB>,
  since: number,
): Promise<{ sinceNet: string; total: string; matches: number }> {
  const [fills, funding] = await Promise.all([listExecutedFills(db), listFundingAmounts(db)]);
  fills.sort((a, b) => (keyBefore(a, b) ? -1 : keyBefore(b, a) ? 1 : 0));
  const ledger = new StatsLedger();
  ledger.append(fills);
  const closed = ledger.closedTradesPnl();
  const sinceNet = funding.length
    ? D(ledger.netPnlSince(since)).plus(fundingSince(funding, since)).toString()
    : ledger.netPnlSince(since);
  const total = funding.length ? D(closed.totalPnL).plus(fundingSince(funding)).toString() : closed.totalPnL;
  return { sinceNet, total, matches: closed.realizedMatches };
}
const money = (value: string) => {
  const fixed = toFixed(value, 2);
  return fixed.startsWith("-") ? `-$${fixed.slice(1)}` : `+$${fixed}`;
};

export async function positionsText(db: Kysely<DB>): Promise<string> {
  const open = await listOpenPositions(db);
  if (open.length === 0) return "No open positions.";
  const lines = open.map(
    (p) =>
      `• ${p.side.toUpperCase()} ${p.remainingQuantity} ${p.symbol} @ ${p.entryPrice}${p.stopPrice ? ` (stop ${p.stopPrice})` : ""}`,
  );
  return `Open positions (${open.length}):\n${lines.join("\n")}`;
}

export async function pnlText(db: Kysely<DB>, now = Date.now()): Promise<string> {
  const pnl = await ledgerPnl(db, now - DAY_MS);
  return `P&L (realized, net of fees)\nLast 24 h: ${money(pnl.sinceNet)}\nAll time: ${money(pnl.total)} over ${pnl.matches} closed matches`;
}

export async function statusText(db: Kysely<DB>, now = Date.now()): Promise<string> {
  const [stop, config, beats, open] = await Promise.all([
    getEmergencyStop(db),
    getTradingConfig(db),
    listHeartbeats(db),
    listOpenPositions(db),
  ]);
  const alive = beats.filter((b) => b.status === "running" && now - b.lastBeatAt <= 15_000).length;
  return [
    `Emergency stop: ${stop.active ? "ON" : "off"}`,
    `Auto trading: ${config.autoTradingEnabled ? "on" : "off"}`,
    `Workers running: ${alive}`,
    `Open positions: ${open.length}`,
  ].join("\n");
}

export async function dailySummary(db: Kysely<DB>, now = Date.now()): Promise<{ title: string; body: string }> {
  const [pnl, fills, positions] = await Promise.all([
    ledgerPnl(db, now - DAY_MS),
    countFillsSince(db, now - DAY_MS),
    positionsText(db),
  ]);
  const day = pnl.sinceNet;
  return {
    title: `Daily summary: ${money(day)} in the last 24 h, ${fills} fill${fills === 1 ? "" : "s"}`,
    body: `Realized P&L (net of fees, last 24 h): ${money(day)}\nFills: ${fills}\n${positions}`,
  };
}
