// The one interface every exchange adapter implements (simulator, Coinbase). Quantities
// and prices are decimal strings in the base asset / quote currency; symbols are ours
// (BTC-PERP ...). Adapters translate everything vendor-specific at this edge.
export type OrderSide = "buy" | "sell";
export type OrderType = "market" | "limit";
export type MarginType = "cross" | "isolated";

/** open: accepted, resting; filled; cancelled; rejected. `unknown` is never returned: errors are thrown. */
export type ExchangeOrderStatus = "open" | "filled" | "partially_filled" | "cancelled" | "rejected";

export interface PlaceOrderRequest {
  clientOrderId: string;
  symbol: string;
  side: OrderSide;
  type: OrderType;
  quantity: string;
  /** Required for limit orders. */
  price?: string | null;
  leverage?: number;
  marginType?: MarginType;
  /** Only reduces an open position (closing orders). */
  reduceOnly?: boolean;
}

export interface ExchangeOrder {
  orderId: string;
  clientOrderId: string;
  symbol: string;
  side: OrderSide;
  type: OrderType;
  status: ExchangeOrderStatus;
  quantity: string;
  price: string | null;
  filledQuantity: string;
  averagePrice: string | null;
  fee: string;
  leverage: number;
  marginType: MarginType;
  rejectReason: string | null;
  createdAt: string; // ISO
  updatedAt: string; // ISO
}

export interface Balance {
  currency: string;
  available: string;
  hold: string;
}

export interface Ticker {
  symbol: string;
  price: string;
  bid: string | null;
  ask: string | null;
  time: string; // ISO
  source: string;
}

export interface Product {
  symbol: string;
  base: string;
  quote: string;
  baseIncrement: string;
  baseMinSize: string;
  quoteIncrement: string;
  minMarketFunds: string;
  price: string | null;
  /** Percent change over 24 h as a decimal string ("2.5" = +2.5 %), null when unknown. */
  priceChange24h?: string | null;
  /** Base-asset volume over 24 h, null when unknown. */
  volume24h?: string | null;
  /** When the change's window starts, epoch ms, if later than 24 h ago (a history younger than a day). */
  changeSince?: number | null;
  /** What the volume counts when it is not the market's ("paper fills": the simulator's own). */
  volumeBasis?: string | null;
  status: "online" | "offline";
}

export interface ExchangePosition {
  symbol: string;
  side: "long" | "short";
  quantity: string;
  entryPrice: string;
  markPrice: string | null;
  unrealizedPnl: string | null;
  leverage: number;
  marginType: MarginType;
  /** The exchange's own liquidation price, when it reports one. */
  liquidationPrice?: string | null;
}

/** A resting stop(-limit) order that closes a position where the exchange keeps one (issue 15). */
export interface StopOrderRequest {
  clientOrderId: string;
  symbol: string;
  /** sell: protects a long (triggers when the price falls to stopPrice); buy: protects a short. */
  side: OrderSide;
  quantity: string;
  stopPrice: string;
  /** The worst price it may fill at once triggered. */
  limitPrice: string;
}

export interface ConnectionTest {
  success: boolean;
  message: string;
}

export interface FindOrderOptions {
  since?: number | string;
}

export interface ExchangeAdapter {
  /** "simulator" | "coinbase" */
  readonly name: string;
  /** Shown in the status block, e.g. "Simulator (paper trading)". */
  readonly label: string;
  placeOrder(request: PlaceOrderRequest): Promise<ExchangeOrder>;
  /**
   * The order with this client order id, or null when the exchange never received it.
   * `since` (epoch ms or ISO): when the order was written, before it could have been sent; an
   * exchange without a lookup by client id searches its orders from then on, however many
   * came after (issue 21, defect 10).
   */
  findOrderByClientId(clientOrderId: string, options?: FindOrderOptions): Promise<ExchangeOrder | null>;
  getOrder(orderId: string): Promise<ExchangeOrder>;
  cancelOrder(orderId: string): Promise<ExchangeOrder>;
  getBalances(): Promise<Balance[]>;
  getPositions(): Promise<ExchangePosition[]>;
  getProducts(): Promise<Product[]>;
  getProduct(symbol: string): Promise<Product>;
  getTicker(symbol: string): Promise<Ticker>;
  testConnection(): Promise<ConnectionTest>;
  /**
   * Places a resting stop order on the exchange (protection that survives the worker). Absent
   * when the exchange keeps none (the simulator: its stops run in the worker's monitor).
   */
  placeStopOrder?(request: StopOrderRequest): Promise<ExchangeOrder>;
  /**
   * Moves a resting stop in place (new stop, limit and quantity; the same order), so the
   * position is never without one while it moves. Absent where the exchange cannot; a refusal
   * (InvalidOrderError) means "cancel and place instead".
   */
  editStopOrder?(request: Omit<StopOrderRequest, "clientOrderId"> & { orderId: string }): Promise<ExchangeOrder>;
}

/**
 * The balance that carries futures margin: Coinbase reports its futures buying power as
 * "USD"; the simulator's paper account is "USDC". The first present wins; a zero balance
 * in the preferred currency is returned when none is present.
 */
export const MARGIN_CURRENCIES = ["USD", "USDC"] as const;

export function marginBalance(balances: Balance[]): Balance {
  for (const currency of MARGIN_CURRENCIES) {
    const found = balances.find((b) => b.currency === currency);
    if (found) return found;
  }
  return { currency: "USDC", available: "0", hold: "0" };
}
