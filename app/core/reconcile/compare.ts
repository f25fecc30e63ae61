// Reconciliation (issue 11): the exchange's positions against the app's open positions, per
// symbol. Pure: both sides in, the differences out. A symbol with an order in flight (a
// pending trade or a job not finished) is skipped by the caller: its fill may be on the
// exchange and not yet booked.
import { D } from "../decimal.ts";

export type DriftKind = "unknown_position" | "quantity_mismatch" | "missing_on_exchange";

export interface BookSide {
  symbol: string;
  side: "long" | "short";
  quantity: string;
  entryPrice?: string | null;
  markPrice?: string | null;
}

export interface DriftFinding {
  symbol: string;
  kind: DriftKind;
  appSide: "long" | "short" | null;
  appQuantity: string;
  exchangeSide: "long" | "short" | null;
  exchangeQuantity: string;
  exchangeEntry: string | null;
  markPrice: string | null;
}

/** Signed size: long positive, short negative. */
export const signedQuantity = (side: "long" | "short" | null, quantity: string) =>
  side === "short" ? D(quantity).neg() : D(quantity);

/** Differences below this (base units) are rounding, not drift. */
const EPSILON = D("0.000000000001");

export function compareBooks(
  exchange: readonly BookSide[],
  app: readonly BookSide[],
  skip: ReadonlySet<string> = new Set(),
): DriftFinding[] {
  const bySymbol = new Map<string, { ex?: BookSide; app?: BookSide }>();
  for (const p of exchange) if (D(p.quantity).gt(0)) bySymbol.set(p.symbol, { ...bySymbol.get(p.symbol), ex: p });
  for (const p of app) if (D(p.quantity).gt(0)) bySymbol.set(p.symbol, { ...bySymbol.get(p.symbol), app: p });
  const findings: DriftFinding[] = [];
  for (const [symbol, { ex, app: mine }] of [...bySymbol].sort(([a], [b]) => a.localeCompare(b))) {
    if (skip.has(symbol)) continue;
    const exchangeSigned = ex ? signedQuantity(ex.side, ex.quantity) : D(0);
    const appSigned = mine ? signedQuantity(mine.side, mine.quantity) : D(0);
    if (exchangeSigned.minus(appSigned).abs().lte(EPSILON)) continue;
    findings.push({
      symbol,
      kind: !mine ? "unknown_position" : !ex ? "missing_on_exchange" : "quantity_mismatch",
      appSide: mine?.side ?? null,
      appQuantity: mine ? D(mine.quantity).toString() : "0",
      exchangeSide: ex?.side ?? null,
      exchangeQuantity: ex ? D(ex.quantity).toString() : "0",
      exchangeEntry: ex?.entryPrice ?? null,
      markPrice: ex?.markPrice ?? mine?.markPrice ?? null,
    });
  }
  return findings;
}

/**
 * The fill that makes the app's book equal the exchange's: side and quantity (null when
 * nothing is to be done). Adopting books it at the exchange's entry price when the app had
 * nothing, else at the mark price.
 */
export function adoptingFill(
  finding: Pick<DriftFinding, "appSide" | "appQuantity" | "exchangeSide" | "exchangeQuantity">,
): { side: "buy" | "sell"; quantity: string } | null {
  const delta = signedQuantity(finding.exchangeSide, finding.exchangeQuantity).minus(
    signedQuantity(finding.appSide, finding.appQuantity),
  );
  if (delta.abs().lte(EPSILON)) return null;
  return { side: delta.gt(0) ? "buy" : "sell", quantity: delta.abs().toString() };
}

export const DRIFT_TEXT: Record<DriftKind, string> = {
  unknown_position: "Position on the exchange the app does not know",
  quantity_mismatch: "Quantity differs from the exchange",
  missing_on_exchange: "Position closed on the exchange outside the app",
};

export function describeDrift(
  f: Pick<DriftFinding, "symbol" | "kind" | "appSide" | "appQuantity" | "exchangeSide" | "exchangeQuantity">,
): string {
  const side = (s: string | null, q: string) => (s ? `${s} ${q}` : "flat");
  return `${DRIFT_TEXT[f.kind]}: ${f.symbol} is ${side(f.exchangeSide, f.exchangeQuantity)} on the exchange, ${side(f.appSide, f.appQuantity)} in the app`;
}
