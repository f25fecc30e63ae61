// Every migration in the order it landed on main, grouped by the release (commit) that first
// shipped it: what a database migrated at that release holds. The upgrade test
// (tests/integration/upgrade.test.ts) builds a database at each of these states and migrates
// it to the newest; it also fails when a migration is registered without being listed here,
// or when a new one's name does not sort after every earlier one.
// Adding a migration: name it after every existing one (yyyy_mm_dd_hhmm_<what>), register it
// in index.ts, and append it here as its own release.
export const MIGRATION_RELEASES: readonly (readonly string[])[] = [
  ["2026_11_21_0900_init"],
  ["2026_11_21_1000_simulator"],
  ["2026_11_21_1100_position_locks"],
  ["2026_11_21_1200_trade_realized_pnl"],
  ["2026_11_22_0100_exchange_connections"],
  ["2026_11_22_0200_profiles_reports"],
  ["2026_11_22_0300_trade_fill_indexes"],
  ["2026_11_24_0100_security"],
  ["2026_11_25_0100_fifo_realized_pnl"],
  ["2026_11_25_0200_drifts"],
  ["2026_11_25_0300_price_history"],
  ["2026_11_25_0400_order_slots"],
  ["2026_11_25_0500_paper_funding"],
  ["2026_11_25_0600_exchange_stops"],
  ["2026_11_25_0700_signal_timeline"],
  ["2026_11_25_0750_strategies"],
  ["2026_11_25_0800_strategy_heartbeats"],
  ["2026_11_25_0900_audit_entries"],
  // Released at 9e2b601 before the two below, whose names sort before it (the break fixed in db/migrate.ts).
  ["2026_11_26_0300_candles"],
  ["2026_11_26_0200_equity_snapshots"],
  ["2026_11_26_0100_notifications"],
  ["2026_11_26_0400_trade_lookup_indexes"],
  ["2026_11_27_0100_stop_lifecycle"],
  ["2026_11_27_0200_position_exchange"],
  ["2026_11_27_0300_password_resets"],
  ["2026_11_27_0500_alert_accounting"],
];

/** The last migration released out of name order: every one after it must sort after all before it. */
export const LAST_UNORDERED = "2026_11_26_0100_notifications";
