// Decimal arithmetic for money and quantities: strings in, strings out, big.js inside.
// Never JavaScript floats: 0.1 + 0.2 must stay 0.3.
import Big from "big.js";

Big.DP = 36; // division precision
Big.RM = Big.roundHalfUp;
Big.NE = -40; // never exponent notation in toString
Big.PE = 60;

export type DecimalInput = string | number | Big;

export const D = (value: DecimalInput): Big => new Big(value);

/** True for a plain decimal number string (no exponent, no spaces): "12", "-0.5", ".5". */
export function isDecimalString(value: string): boolean {
  return /^-?(\d+(\.\d*)?|\.\d+)$/.test(value.trim());
}

/** Parses user or wire input into a normalised decimal string, or null when it is not one. */
export function parseDecimal(value: unknown): string | null {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    // A JSON number: take its shortest round-trip text, which is what the sender wrote.
    value = String(value);
  }
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (!text) return null;
  const expanded = /^-?\d+(\.\d+)?e[+-]?\d+$/i.test(text)
    ? safeBig(text)
    : isDecimalString(text)
      ? safeBig(text)
      : null;
  return expanded ? expanded.toString() : null;
}

function safeBig(text: string): Big | null {
  try {
    return new Big(text);
  } catch {
    return null;
  }
}

/** Normalises what a driver returned ("1.500000000000000000" from MySQL, "1.5" from SQLite). */
export function normalizeDecimal(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined || value === "") return null;
  return new Big(value).toString();
}

/** Rounds down to a multiple of `increment` (order sizes never round up past what was asked). */
export function floorToIncrement(value: DecimalInput, increment: DecimalInput): string {
  const inc = D(increment);
  if (inc.lte(0)) return D(value).toString();
  return D(value).div(inc).round(0, Big.roundDown).times(inc).toString();
}

/** Rounds to the nearest multiple of `increment` (prices). */
export function roundToIncrement(value: DecimalInput, increment: DecimalInput): string {
  const inc = D(increment);
  if (inc.lte(0)) return D(value).toString();
  return D(value).div(inc).round(0, Big.roundHalfUp).times(inc).toString();
}

/** Fixed decimals for display (no float conversion on the way). */
export function toFixed(value: DecimalInput | null | undefined, decimals: number): string {
  if (value === null || value === undefined || value === "") return "";
  return D(value).toFixed(decimals, Big.roundHalfUp);
}

export const max = (a: DecimalInput, b: DecimalInput) => (D(a).gte(b) ? D(a) : D(b)).toString();
export const min = (a: DecimalInput, b: DecimalInput) => (D(a).lte(b) ? D(a) : D(b)).toString();
export const sum = (values: DecimalInput[]) => values.reduce<Big>((acc, v) => acc.plus(v), D(0)).toString();

export { Big };
