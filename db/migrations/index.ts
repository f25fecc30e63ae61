// The explicit list of migrations (bundler-safe: nothing is read from a folder at run time).
import type { Migration } from "kysely";
import * as init from "./2026_11_21_0900_init.ts";
import * as positionLocks from "./2026_11_21_1100_position_locks.ts";
import * as tradeRealizedPnl from "./2026_11_21_1200_trade_realized_pnl.ts";
import * as simulator from "./2026_11_21_1000_simulator.ts";
import * as exchangeConnections from "./2026_11_22_0100_exchange_connections.ts";
import * as profilesReports from "./2026_11_22_0200_profiles_reports.ts";
import * as tradeFillIndexes from "./2026_11_22_0300_trade_fill_indexes.ts";
import * as security from "./2026_11_24_0100_security.ts";
import * as fifoRealizedPnl from "./2026_11_25_0100_fifo_realized_pnl.ts";
import * as drifts from "./2026_11_25_0200_drifts.ts";
import * as priceHistory from "./2026_11_25_0300_price_history.ts";
import * as paperFunding from "./2026_11_25_0500_paper_funding.ts";
import * as exchangeStops from "./2026_11_25_0600_exchange_stops.ts";
import * as orderSlots from "./2026_11_25_0400_order_slots.ts";
import * as strategies from "./2026_11_25_0750_strategies.ts";
import * as signalTimeline from "./2026_11_25_0700_signal_timeline.ts";
import * as strategyHeartbeats from "./2026_11_25_0800_strategy_heartbeats.ts";
import * as auditEntries from "./2026_11_25_0900_audit_entries.ts";
import * as notifications from "./2026_11_26_0100_notifications.ts";
import * as equitySnapshots from "./2026_11_26_0200_equity_snapshots.ts";
import * as candles from "./2026_11_26_0300_candles.ts";
import * as tradeLookupIndexes from "./2026_11_26_0400_trade_lookup_indexes.ts";
import * as stopLifecycle from "./2026_11_27_0100_stop_lifecycle.ts";
import * as positionExchange from "./2026_11_27_0200_position_exchange.ts";
import * as passwordResets from "./2026_11_27_0300_password_resets.ts";
import * as alertAccounting from "./2026_11_27_0500_alert_accounting.ts";

export const migrations: Record<string, Migration> = {
  "2026_11_21_0900_init": init,
  "2026_11_21_1000_simulator": simulator,
  "2026_11_21_1100_position_locks": positionLocks,
  "2026_11_21_1200_trade_realized_pnl": tradeRealizedPnl,
  "2026_11_22_0100_exchange_connections": exchangeConnections,
  "2026_11_22_0200_profiles_reports": profilesReports,
  "2026_11_22_0300_trade_fill_indexes": tradeFillIndexes,
  "2026_11_24_0100_security": security,
  "2026_11_25_0100_fifo_realized_pnl": fifoRealizedPnl,
  "2026_11_25_0200_drifts": drifts,
  "2026_11_25_0300_price_history": priceHistory,
  "2026_11_25_0400_order_slots": orderSlots,
  "2026_11_25_0500_paper_funding": paperFunding,
  "2026_11_25_0750_strategies": strategies,
  "2026_11_25_0600_exchange_stops": exchangeStops,
  "2026_11_25_0700_signal_timeline": signalTimeline,
  "2026_11_25_0800_strategy_heartbeats": strategyHeartbeats,
  "2026_11_25_0900_audit_entries": auditEntries,
  "2026_11_26_0100_notifications": notifications,
  "2026_11_26_0200_equity_snapshots": equitySnapshots,
  "2026_11_26_0300_candles": candles,
  "2026_11_26_0400_trade_lookup_indexes": tradeLookupIndexes,
  "2026_11_27_0100_stop_lifecycle": stopLifecycle,
  "2026_11_27_0200_position_exchange": positionExchange,
  "2026_11_27_0300_password_resets": passwordResets,
  "2026_11_27_0500_alert_accounting": alertAccounting,
};
