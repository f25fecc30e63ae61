// Kysely types for every table. Conventions (docs/architecture.md):
// - timestamps are epoch milliseconds (BIGINT) on both dialects;
// - money and quantities are decimal strings (TEXT in SQLite, DECIMAL(36,18) in MySQL:
//   mysql2 pads them to the scale, so always normalise with app/core/decimal.ts);
// - booleans are 0/1 integers; JSON is stored as text and parsed in db/queries.
import type { ColumnType, Generated, Selectable } from "kysely";

type Millis = number;
type Decimal = string;
type Flag = number;
/** A column the database fills (autoincrement) that is returned as a number. */
type AutoId = Generated<number>;

export interface UsersTable {
  id: string;
  username: string;
  username_key: string;
  password_hash: string;
  role: string; // admin | trader | viewer
  disabled: ColumnType<Flag, Flag | undefined, Flag>;
  last_login_at: Millis | null;
  totp_secret_enc: string | null; // confirmed TOTP secret (AES-GCM, APP_SECRET)
  totp_pending_enc: string | null; // secret being enrolled, not yet confirmed
  totp_last_step: number | null; // time step (30 s) of the last accepted code: each code works once
  created_at: Millis;
  updated_at: Millis;
}

export interface InvitesTable {
  code: string;
  role: string; // admin | trader | viewer
  created_by: string | null;
  created_at: Millis;
  expires_at: Millis;
  used_at: Millis | null;
  used_by: string | null;
}

/** A difference between the exchange and the app's book (worker/monitor/reconcile.ts). */
export interface DriftsTable {
  id: string;
  exchange: string;
  symbol: string;
  kind: string; // unknown_position | quantity_mismatch | missing_on_exchange
  app_side: string | null; // long | short | null (flat)
  app_quantity: string;
  exchange_side: string | null;
  exchange_quantity: string;
  exchange_entry: string | null;
  mark_price: string | null;
  status: string; // open | resolved | cleared
  resolution: string | null;
  resolved_by: string | null;
  created_at: Millis;
  updated_at: Millis;
  resolved_at: Millis | null;
}

/** The first price of each minute per symbol, 24 h of it (Market Data's 24 h change). */
/** 1-minute OHLC candles per symbol (decision 032): every stored price updates its minute's candle. */
export interface CandlesTable {
  symbol: string;
  bucket: Millis; // the minute's start, epoch ms
  open: Decimal; // the minute's first stored price
  high: Decimal;
  low: Decimal;
  close: Decimal; // the price of the minute's latest tick
  ticks: Generated<number>;
  updated_at: Millis; // the time of the close's tick
}

/** One-time password reset links (decision 041): the token's SHA-256 only, 1 h, used once. */
export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_by: string | null;
  created_at: Millis;
  expires_at: Millis;
  used_at: Millis | null;
}

export interface RecoveryCodesTable {
  code_hash: string; // SHA-256 hex of the code: the code itself is shown once, never stored
  user_id: string;
  created_at: Millis;
  used_at: Millis | null;
}

export interface SessionsTable {
  id: string; // SHA-256 of the cookie token: the token itself is never stored
  user_id: string;
  created_at: Millis;
  expires_at: Millis;
  last_seen_at: Millis;
  ip: string | null;
  user_agent: string | null;
}

export interface LoginThrottlesTable {
  key: string; // "user:<username_key>" or "ip:<address>"
  failures: number;
  locked_until: Millis | null;
  updated_at: Millis;
}

export interface SettingsTable {
  key: string;
  value: string; // JSON
  updated_at: Millis;
}

export interface ExchangesTable {
  id: string;
  exchange_name: string;
  account_name: string;
  api_key: string;
  api_secret_enc: string;
  passphrase_enc: string | null;
  sandbox: ColumnType<Flag, Flag | undefined, Flag>;
  is_enabled: ColumnType<Flag, Flag | undefined, Flag>;
  connection_status: ColumnType<string, string | undefined, string>;
  status_message: string | null;
  total_usd_value: Decimal | null;
  last_tested_at: Millis | null;
  created_at: Millis;
  updated_at: Millis;
}

export interface SignalsTable {
  id: string;
  action: string;
  symbol: string;
  order_type: string;
  price: Decimal | null;
  quantity: Decimal;
  payload: string; // JSON of the received alert, secret removed
  strategy: string | null;
  signal_time: Millis | null;
  dedupe_key: string;
  processed: ColumnType<Flag, Flag | undefined, Flag>;
  status: string; // queued | executed | skipped | failed
  status_reason: string | null;
  created_at: Millis;
  processed_at: Millis | null;
  /** The strategy whose secret the alert carried; null = the global secret ("default"). */
  strategy_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface JobsTable {
  id: AutoId;
  task: string;
  payload: string; // JSON, validated by the task's schema
  status: string; // created | retry | active | completed | cancelled | failed
  priority: ColumnType<number, number | undefined, number>;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: ColumnType<number, number | undefined, number>;
  run_at: Millis;
  locked_by: string | null;
  locked_until: Millis | null;
  last_error: string | null;
  job_key: string | null;
  signal_id: string | null;
  created_at: Millis;
  updated_at: Millis;
  finished_at: Millis | null;
}

export interface TradesTable {
  id: string;
  symbol: string;
  side: string; // buy | sell
  order_type: string; // market | limit
  quantity: Decimal;
  price: Decimal | null;
  executed_price: Decimal | null;
  executed_quantity: ColumnType<Decimal, Decimal | undefined, Decimal>;
  fee: ColumnType<Decimal, Decimal | undefined, Decimal>;
  status: string; // pending | executed | completed | failed | cancelled
  source: string; // signal | manual | rule
  order_id: string | null; // the exchange's order id
  client_order_id: string;
  exchange: string; // simulator | coinbase
  signal_id: string | null;
  position_id: string | null;
  job_id: number | null;
  leverage: number | null;
  margin_type: string | null;
  reduce_only: ColumnType<Flag, Flag | undefined, Flag>;
  error_message: string | null;
  realized_pnl: ColumnType<Decimal | null, Decimal | null | undefined, Decimal | null>;
  created_at: Millis;
  executed_at: Millis | null;
  updated_at: Millis;
  /** The strategy of the signal that made it (null: default strategy, manual, rules). */
  strategy_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PositionsTable {
  id: string;
  symbol: string;
  side: string; // long | short
  quantity: Decimal;
  remaining_quantity: Decimal;
  entry_price: Decimal;
  current_price: Decimal | null;
  entry_trade_id: string | null;
  max_drawdown: ColumnType<Decimal, Decimal | undefined, Decimal>;
  portfolio_percent: ColumnType<Decimal, Decimal | undefined, Decimal>;
  status: string; // open | closed
  break_even_triggered: ColumnType<Flag, Flag | undefined, Flag>;
  trailing_stop_active: ColumnType<Flag, Flag | undefined, Flag>;
  trailing_best_price: Decimal | null;
  stop_price: Decimal | null;
  advanced_controls: string | null; // JSON
  rule_state: string | null; // JSON: take-profit levels filled, pending rule jobs
  realized_pnl: ColumnType<Decimal, Decimal | undefined, Decimal>;
  fees: ColumnType<Decimal, Decimal | undefined, Decimal>;
  /** Funding paid (-) or received (+) so far; included in realized_pnl (docs/pnl.md). */
  funding: ColumnType<Decimal, Decimal | undefined, Decimal>;
  leverage: ColumnType<number, number | undefined, number>;
  margin_type: ColumnType<string, string | undefined, string>;
  source: string;
  signal_id: string | null;
  created_at: Millis;
  updated_at: Millis;
  closed_at: Millis | null;
  /** The strategy of the trade that opened it (docs/decisions/027-strategies.md). */
  strategy_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The exchange that holds it (docs/decisions/039-positions-stay-on-their-exchange.md). */
  exchange: ColumnType<string, string | undefined, string>;
}

/** A strategy: its own webhook secret, sizing, limits and rule overrides (decision 027). */
export interface StrategiesTable {
  id: string;
  name: string;
  name_key: string; // lower-cased name, unique
  enabled: ColumnType<Flag, Flag | undefined, Flag>;
  secret_enc: string; // AES-GCM with APP_SECRET, like the global webhook secret
  secret_hash: string; // SHA-256 hex of the secret: the webhook finds the strategy by it
  allowed_symbols: string; // JSON array of symbols; [] = all
  amount_type: string; // multiplier | usd | percentage | contracts
  amount_value: Decimal;
  max_position_size: Decimal | null;
  max_open_positions: number | null;
  leverage: ColumnType<number, number | undefined, number>;
  rules: string | null; // JSON: overrides of the trading config's protection fields
  secret_rotated_at: Millis;
  created_at: Millis;
  updated_at: Millis;
}

export interface ActivityLogsTable {
  id: AutoId;
  type: string; // trade | signal | system | auth | webhook | ...
  level: string; // error | warning | success | info
  message: string;
  data: string | null; // JSON object
  created_at: Millis;
}

/** The audit trail (issue 13, db/queries/audit.ts): never deleted by a reset or housekeeping. */
export interface AuditEntriesTable {
  id: AutoId;
  created_at: Millis;
  actor: string; // username or "system"
  action: string; // e.g. trading_config.update
  target: string; // e.g. a strategy id, "webhook_secret"
  changes: string; // JSON: { field: { before, after } }, secrets as "(changed)"
  ip: string | null;
}

/** Account snapshots the price-leader worker records (docs/decisions/031-performance-charts.md). */
export interface EquitySnapshotsTable {
  id: AutoId;
  taken_at: Millis;
  reason: string; // interval | fill
  realized_pnl: Decimal; // the ledger's all-time total (with funding) at that moment
  unrealized_pnl: Decimal; // Σ open positions at the latest prices
  balance: Decimal | null; // collateral (available + hold); null when the exchange did not answer
  equity: Decimal | null; // balance + unrealized
  currency: string | null;
  open_positions: ColumnType<number, number | undefined, number>;
}

export interface NotificationChannelsTable {
  channel: string; // telegram | webhook | email
  enabled: number;
  settings: string; // JSON: the non-secret fields (chat id, SMTP host, ...)
  secrets_enc: string | null; // AES-GCM (app/core/crypto.ts) of a JSON object of the secrets
  secret_hints: string; // JSON: { field: last 4 characters }
  events: string; // JSON: the event kinds switched on
  updated_at: Millis;
  updated_by: string | null;
}

export interface NotificationsTable {
  id: string;
  kind: string; // app/core/notifications/events.ts, or "digest" | "test"
  title: string;
  body: string;
  dedupe_key: string | null; // unique: one notification per source fact
  created_at: Millis;
}

export interface NotificationDeliveriesTable {
  id: AutoId;
  notification_id: string;
  channel: string;
  status: string; // queued | sending | sent | retrying | failed | digested
  attempts: number;
  last_error: string | null; // never a secret
  digest_id: string | null; // the digest notification this one was folded into
  created_at: Millis;
  updated_at: Millis;
  sent_at: Millis | null;
}

export interface EventsTable {
  id: AutoId;
  type: string; // dashboard_update | new_signal | trade_update | activity_log | system_status
  data: string; // JSON
  created_at: Millis;
}

export interface WorkerHeartbeatsTable {
  worker_id: string;
  hostname: string;
  pid: number;
  started_at: Millis;
  last_beat_at: Millis;
  status: string; // running | stopping | stopped
  info: string | null; // JSON
}

export interface ProfilesTable {
  id: string;
  profile_id: string;
  name: string;
  is_default: ColumnType<Flag, Flag | undefined, Flag>;
  active: ColumnType<Flag, Flag | undefined, Flag>;
  trading_enabled: ColumnType<Flag, Flag | undefined, Flag>;
  has_margin_enabled: ColumnType<Flag, Flag | undefined, Flag>;
  source: string; // simulator | coinbase
  created_at: Millis;
  updated_at: Millis;
}

export interface BalancesTable {
  profile_id: string;
  currency: string;
  available: Decimal;
  hold: ColumnType<Decimal, Decimal | undefined, Decimal>;
  updated_at: Millis;
}

export interface MarketPricesTable {
  symbol: string;
  price: Decimal;
  bid: Decimal | null;
  ask: Decimal | null;
  source: string; // coinbase | random-walk | test
  updated_at: Millis;
}

export interface ReportsTable {
  id: string;
  report_id: string | null;
  type: string; // fills | balance | account | otc_fills
  format: string; // csv | pdf
  status: string; // pending | creating | ready | failed
  requested_at: Millis;
  start_date: string | null;
  end_date: string | null;
  product_id: string | null;
  profile_id: string | null;
  year: string | null;
  file_path: string | null;
  file_url: string | null;
  error_message: string | null;
  user_id: string | null;
  created_at: Millis;
  updated_at: Millis;
  // 2026_11_22_0200_profiles_reports: the generated file, kept in the database.
  file_data: Uint8Array | null;
  file_name: string | null;
  content_type: string | null;
  file_size: number | null;
  completed_at: Millis | null;
  expires_at: Millis | null;
}

/** Funds moved between paper profiles (2026_11_22_0200_profiles_reports). */
export interface ProfileTransfersTable {
  id: string;
  from_profile_id: string; // profiles.id
  to_profile_id: string; // profiles.id
  currency: string;
  amount: Decimal;
  kind: string; // transfer | delete
  requested_by: string | null;
  created_at: Millis;
}

export interface ExchangeStopsTable {
  position_id: string;
  exchange: string;
  symbol: string;
  order_id: string;
  client_order_id: string;
  side: string; // sell (protects a long) | buy
  stop_price: string;
  limit_price: string;
  quantity: string;
  /** placing (asked, answer not seen: looked up by client id first) | resting | refused (placed again after retry_at). */
  status: ColumnType<string, string | undefined, string>;
  /** Refusals in a row (the back-off before the next placement). */
  failures: ColumnType<number, number | undefined, number>;
  retry_at: ColumnType<number, number | undefined, number>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: number;
  updated_at: number;
}

export interface StrategyHeartbeatsTable {
  strategy_key: string; // "default" (the global secret) or strategies.id
  interval_seconds: number;
  grace_seconds: number;
  last_at: number | null;
  state: string; // waiting | ok | missed
  missed_since: number | null;
  created_at: number;
  updated_at: number;
}

export interface OrderSlotsTable {
  exchange: string;
  symbol: string;
  /** The job ("job:<id>") whose order is in flight, null when free. */
  holder: string | null;
  expires_at: ColumnType<number, number | undefined, number>;
  /** The job holding the slot: the slot is its while the job lives (created/retry/active), whatever the lease. */
  job_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface PositionLocksTable {
  symbol: string;
  version: ColumnType<number, number | undefined, number>;
}

/**
 * The latency timeline of a signal (issue 12, db/queries/signal-timeline.ts): epoch ms of
 * each hop of its path, null until the hop happened (or when the alert had no fire time).
 */
export interface SignalTimelineTable {
  signal_id: string;
  fired_at: Millis | null; // TradingView's fire time: the alert's timenow, else its timestamp
  received_at: Millis | null; // the web process got the request
  committed_at: Millis | null; // the signal + job transaction's last write (its commit follows)
  claimed_at: Millis | null; // a worker claimed the job
  sent_at: Millis | null; // just before the order went to the exchange
  acked_at: Millis | null; // the exchange answered the order
  filled_at: Millis | null; // the fill booked
}

export interface DB {
  position_locks: PositionLocksTable;
  order_slots: OrderSlotsTable;
  strategy_heartbeats: StrategyHeartbeatsTable;
  exchange_stops: ExchangeStopsTable;
  users: UsersTable;
  sessions: SessionsTable;
  login_throttles: LoginThrottlesTable;
  settings: SettingsTable;
  exchanges: ExchangesTable;
  signals: SignalsTable;
  jobs: JobsTable;
  trades: TradesTable;
  positions: PositionsTable;
  activity_logs: ActivityLogsTable;
  audit_entries: AuditEntriesTable;
  equity_snapshots: EquitySnapshotsTable;
  events: EventsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  profiles: ProfilesTable;
  balances: BalancesTable;
  market_prices: MarketPricesTable;
  reports: ReportsTable;
  profile_transfers: ProfileTransfersTable;
  sim_orders: SimOrdersTable;
  sim_positions: SimPositionsTable;
  sim_funding: SimFundingTable;
  funding_payments: FundingPaymentsTable;
  invites: InvitesTable;
  recovery_codes: RecoveryCodesTable;
  password_resets: PasswordResetsTable;
  drifts: DriftsTable;
  candles: CandlesTable;
  signal_timeline: SignalTimelineTable;
  strategies: StrategiesTable;
  notification_channels: NotificationChannelsTable;
  notifications: NotificationsTable;
  notification_deliveries: NotificationDeliveriesTable;
}

export type UserRow = Selectable<UsersTable>;
export type SignalRow = Selectable<SignalsTable>;
export type JobRow = Selectable<JobsTable>;
export type TradeRow = Selectable<TradesTable>;
export type PositionRow = Selectable<PositionsTable>;
export type ExchangeRow = Selectable<ExchangesTable>;
export type ProfileRow = Selectable<ProfilesTable>;
export type ReportRow = Selectable<ReportsTable>;

// The paper-trading simulator's own state (db/migrations/2026_11_21_1000_simulator.ts).
export interface SimOrdersTable {
  id: string;
  client_order_id: string;
  profile_id: string; // profiles.id
  symbol: string;
  side: string; // buy | sell
  order_type: string; // market | limit
  quantity: Decimal;
  price: Decimal | null; // limit price; null for market orders
  status: string; // open | filled | cancelled | rejected
  filled_quantity: ColumnType<Decimal, Decimal | undefined, Decimal>;
  average_price: Decimal | null;
  fee: ColumnType<Decimal, Decimal | undefined, Decimal>;
  leverage: ColumnType<number, number | undefined, number>;
  margin_type: ColumnType<string, string | undefined, string>;
  reduce_only: ColumnType<Flag, Flag | undefined, Flag>;
  hold_amount: ColumnType<Decimal, Decimal | undefined, Decimal>; // held while resting
  realized_pnl: ColumnType<Decimal, Decimal | undefined, Decimal>;
  reject_reason: string | null;
  created_at: Millis;
  updated_at: Millis;
}

export interface SimPositionsTable {
  profile_id: string;
  symbol: string;
  side: string; // long | short | flat (quantity 0: the row keeps the realized P&L)
  quantity: Decimal;
  entry_price: Decimal;
  margin: ColumnType<Decimal, Decimal | undefined, Decimal>;
  leverage: ColumnType<number, number | undefined, number>;
  margin_type: ColumnType<string, string | undefined, string>;
  realized_pnl: ColumnType<Decimal, Decimal | undefined, Decimal>;
  /** When the position took its side (funding charges positions open at the boundary); null when unknown. */
  opened_at: ColumnType<Millis | null, Millis | null | undefined, Millis | null>;
  updated_at: Millis;
}

/** The simulator's funding payments: one per profile, symbol and interval (unique). */
export interface SimFundingTable {
  id: string;
  profile_id: string;
  symbol: string;
  interval_start: Millis;
  side: string; // long | short
  quantity: Decimal;
  mark_price: Decimal;
  rate: Decimal;
  /** Signed, on the balance: negative = the position paid. */
  amount: Decimal;
  created_at: Millis;
}

/** The funding payments the app booked on its positions (exchange + exchange_ref unique). */
export interface FundingPaymentsTable {
  id: string;
  exchange: string;
  /** The exchange's record of it (sim_funding.id). */
  exchange_ref: string;
  position_id: string | null;
  symbol: string;
  side: string;
  quantity: Decimal;
  mark_price: Decimal;
  rate: Decimal;
  amount: Decimal;
  interval_start: Millis;
  created_at: Millis;
}

export type SimOrderRow = Selectable<SimOrdersTable>;
export type SimPositionRow = Selectable<SimPositionsTable>;
