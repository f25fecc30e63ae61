// GET /api/candles?symbol=…&from=…&to=…[&limit=…] (decision 032): one contract for the route
// and the chart. Times are epoch ms; at most MAX_CANDLES one-minute candles come back (the
// newest of the range when it holds more).
import { z } from "zod";
import { isKnownSymbol, symbolsText } from "../products.ts";
import type { ChartLevel, ChartMarker } from "../rules/levels.ts";

export const MAX_CANDLES = 1500;
/** The widest range one request may ask for: the candles' retention ceiling. */
export const MAX_CANDLE_RANGE_MS = 3650 * 86_400_000;

const epochMs = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a time in epoch milliseconds` })
    .int({ error: `${name} must be a whole number of epoch milliseconds` })
    .min(0, { error: `${name} must be a time in epoch milliseconds` })
    .max(8_640_000_000_000_000, { error: `${name} is out of range` });

export const CandlesQuerySchema = z
  .object({
    symbol: z
      .string({ error: () => `symbol must be one of ${symbolsText()}` })
      .refine(isKnownSymbol, { error: () => `symbol must be one of ${symbolsText()}` }),
    from: epochMs("from"),
    to: epochMs("to").optional(),
    limit: z.coerce
      .number({ error: "limit must be a number" })
      .int({ error: "limit must be a whole number" })
      .min(1, { error: `limit must be between 1 and ${MAX_CANDLES}` })
      .max(MAX_CANDLES, { error: `limit must be between 1 and ${MAX_CANDLES}` })
      .optional(),
  })
  .refine((q) => q.to === undefined || q.to >= q.from, { error: "to must not be before from", path: ["to"] })
  .refine((q) => q.to === undefined || q.to - q.from <= MAX_CANDLE_RANGE_MS, {
    error: "the range is too wide",
    path: ["to"],
  });

/** One 1-minute candle: the minute's start (epoch ms) and its decimal strings. */
export interface CandleView {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

/** A position's or trade's price chart, as the details APIs answer it (decision 032). */
export interface PriceChartData {
  symbol: string;
  /** The range the candles were read for, epoch ms. */
  from: number;
  to: number;
  candles: CandleView[];
  levels: ChartLevel[];
  markers: ChartMarker[];
}
