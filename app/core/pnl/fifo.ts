// Realized P&L by FIFO matching (docs/pnl.md; docs/spec/api.md#shapes "Closed-trades
// P&L response"). Pure: executed fills in, realized matches out, decimal strings throughout.
//
// Per symbol, fills open lots and close the oldest opposite lots first, long and short alike:
// a sell with no open long opens a short lot, a buy closes short lots first; what a fill has
// left after closing every opposite lot opens a lot in its own direction (a flip).
//
// Fees: a lot carries the part of its opening fill's fee that belongs to it; a match takes
// the lot's fee pro rata by quantity (entry share) plus the closing fill's fee pro rata by
// quantity (exit share). Shares are rounded to 18 decimals (the database's scale) and the
// last piece of a fee takes whatever is left, so the pieces of one fee always add up to it
// exactly. See docs/decisions/004-performance-statistics.md.
import { Big, D } from "../decimal.ts";

export interface ExecutedFill {
  id: string;
  symbol: string;
  side: "buy" | "sell";
  /** Executed quantity (base units or contracts). Fills of 0 or less are ignored. */
  quantity: string;
  /** Average executed price. */
  price: string;
  /** Fee paid on the whole fill (a negative fee is a rebate). */
  fee: string;
  /** Epoch milliseconds. */
  executedAt: number;
  /** The fill's leverage; a lot opened by it keeps it (margin = notional / leverage). Default 1. */
  leverage?: number | null;
}

export interface RealizedMatch {
  symbol: string;
  side: "long" | "short";
  quantity: string;
  entryPrice: string;
  exitPrice: string;
  /** Epoch milliseconds of the opening and the closing fill. */
  entryTime: number;
  exitTime: number;
  /** (exit − entry) × quantity for a long, (entry − exit) × quantity for a short. */
  grossPnl: string;
  /** Entry fee share + exit fee share. */
  fees: string;
  /** grossPnl − fees. */
  netPnl: string;
  entryTradeId: string;
  exitTradeId: string;
  /** Leverage of the opening fill (1 when it had none). */
  leverage: number;
}

export interface OpenLot {
  symbol: string;
  side: "long" | "short";
  /** What is still open of the lot. */
  quantity: string;
  entryPrice: string;
  /** The part of the opening fee not yet given to a match. */
  fee: string;
  entryTime: number;
  entryTradeId: string;
  leverage: number;
}

export interface FifoResult {
  /** Every realized match, in the order they were realized. */
  matches: RealizedMatch[];
  /** Number of matches (docs/spec/api.md#shapes closed-trades P&L `realizedMatches`). */
  realizedMatches: number;
  /** Sum of the matches' netPnl, exact. */
  totalPnL: string;
  /** Lots still open, per symbol in FIFO order. */
  openLots: OpenLot[];
}

/** Fee shares keep the database's scale (DECIMAL(36,18)). */
const FEE_SCALE = 18;

interface Lot {
  side: "long" | "short";
  remaining: Big;
  /** Quantity the lot opened with, and the fee that came with it (for pro-rata shares). */
  openedQuantity: Big;
  openedFee: Big;
  feeLeft: Big;
  price: Big;
  time: number;
  tradeId: string;
  leverage: number;
}

const validLeverage = (value: number | null | undefined): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 1;

/** `total × part / whole`, rounded to the fee scale. */
const proRata = (total: Big, part: Big, whole: Big): Big =>
  total.times(part).div(whole).round(FEE_SCALE, Big.roundHalfUp);

/**
 * The FIFO books of every symbol, fed one fill at a time in execution order: what
 * matchFifo does, kept so the statistics cache can add new fills to it without matching
 * every fill again (app/services/statistics.server.ts).
 */
export class FifoBook {
  private readonly books = new Map<string, Lot[]>();
  private total = D(0);
  private count = 0;
  private closers = 0;

  /** Applies one fill (the next in execution order); returns the matches it realized. */
  apply(fill: ExecutedFill): RealizedMatch[] {
    const matches: RealizedMatch[] = [];
    const quantity = D(fill.quantity);
    if (quantity.lte(0)) return matches;
    const price = D(fill.price);
    const fee = D(fill.fee);
    const fillSide = fill.side === "buy" ? "long" : "short";
    const lots = this.books.get(fill.symbol) ?? [];
    this.books.set(fill.symbol, lots);

    let left = quantity;
    let feeAllocated = D(0);
    while (left.gt(0) && lots.length > 0 && lots[0]!.side !== fillSide) {
      const lot = lots[0]!;
      const closed = lot.remaining.lte(left) ? lot.remaining : left;
      const closesLot = closed.eq(lot.remaining);
      left = left.minus(closed);

      const entryFee = closesLot ? lot.feeLeft : proRata(lot.openedFee, closed, lot.openedQuantity);
      // The fill's last piece (nothing left to close or to open) takes the rest of its fee.
      const exitFee = left.eq(0) ? fee.minus(feeAllocated) : proRata(fee, closed, quantity);
      feeAllocated = feeAllocated.plus(exitFee);

      const move = lot.side === "long" ? price.minus(lot.price) : lot.price.minus(price);
      const gross = move.times(closed);
      const fees = entryFee.plus(exitFee);
      const net = gross.minus(fees);
      this.total = this.total.plus(net);
      this.count++;
      matches.push({
        symbol: fill.symbol,
        side: lot.side,
        quantity: closed.toString(),
        entryPrice: lot.price.toString(),
        exitPrice: price.toString(),
        entryTime: lot.time,
        exitTime: fill.executedAt,
        grossPnl: gross.toString(),
        fees: fees.toString(),
        netPnl: net.toString(),
        entryTradeId: lot.tradeId,
        exitTradeId: fill.id,
        leverage: lot.leverage,
      });

      if (closesLot) {
        lots.shift();
      } else {
        lot.remaining = lot.remaining.minus(closed);
        lot.feeLeft = lot.feeLeft.minus(entryFee);
      }
    }

    if (matches.length > 0) this.closers++;
    if (left.gt(0)) {
      // Opens (or, after closing everything opposite, flips into) a lot in the fill's direction.
      const lotFee = fee.minus(feeAllocated);
      lots.push({
        side: fillSide,
        remaining: left,
        openedQuantity: left,
        openedFee: lotFee,
        feeLeft: lotFee,
        price,
        time: fill.executedAt,
        tradeId: fill.id,
        leverage: validLeverage(fill.leverage),
      });
    }
    return matches;
  }

  /** Sum of every realized match's netPnl, exact. */
  get totalPnL(): string {
    return this.total.toString();
  }

  get realizedMatches(): number {
    return this.count;
  }

  /** Fills that closed something (each a Trade History row with a realized P&L). */
  get closingTrades(): number {
    return this.closers;
  }

  /** Lots still open, per symbol in FIFO order. */
  openLots(): OpenLot[] {
    const openLots: OpenLot[] = [];
    for (const [symbol, lots] of this.books) {
      for (const lot of lots) {
        openLots.push({
          symbol,
          side: lot.side,
          quantity: lot.remaining.toString(),
          entryPrice: lot.price.toString(),
          fee: lot.feeLeft.toString(),
          entryTime: lot.time,
          entryTradeId: lot.tradeId,
          leverage: lot.leverage,
        });
      }
    }
    return openLots;
  }
}

/**
 * Matches fills FIFO per symbol. `fills` must be in execution order; fills with equal
 * `executedAt` keep the order they are given in (the sort is stable).
 */
export function matchFifo(fills: readonly ExecutedFill[]): FifoResult {
  const ordered = [...fills].sort((a, b) => a.executedAt - b.executedAt);
  const book = new FifoBook();
  const matches: RealizedMatch[] = [];
  for (const fill of ordered) {
    for (const match of book.apply(fill)) matches.push(match);
  }
  return { matches, realizedMatches: matches.length, totalPnL: book.totalPnL, openLots: book.openLots() };
}

/** The closed-trades P&L response (docs/spec/api.md#shapes): `{ totalPnL, realizedMatches }`. */
export function closedTradesPnl(fills: readonly ExecutedFill[]): {
  totalPnL: string;
  realizedMatches: number;
  closingTrades: number;
} {
  const { totalPnL, realizedMatches, matches } = matchFifo(fills);
  return { totalPnL, realizedMatches, closingTrades: new Set(matches.map((m) => m.exitTradeId)).size };
}
