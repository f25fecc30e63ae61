// The Performance charts' contract (docs/decisions/031-performance-charts.md): the `range`
// query parameter the Performance screen, the dashboard's card and
// GET /api/performance-charts share. A missing or unknown range is the default (30 days),
// so an old or hand-typed link still answers.
import { z } from "zod";

export const CHART_RANGES = ["7d", "30d", "all"] as const;
export type ChartRange = (typeof CHART_RANGES)[number];
export const DEFAULT_CHART_RANGE: ChartRange = "30d";
export const CHART_RANGE_LABELS: Record<ChartRange, string> = { "7d": "7 days", "30d": "30 days", all: "All time" };

export const PerformanceChartsQuerySchema = z.object({
  range: z.enum(CHART_RANGES).catch(DEFAULT_CHART_RANGE).default(DEFAULT_CHART_RANGE),
  /** "compact": the equity curve and daily bars only (the dashboard's card). */
  detail: z.enum(["full", "compact"]).catch("full").default("full"),
});
export type PerformanceChartsQuery = z.infer<typeof PerformanceChartsQuerySchema>;

/** The query from a URL's search parameters. */
export function parseChartsQuery(search: URLSearchParams): PerformanceChartsQuery {
  return PerformanceChartsQuerySchema.parse({
    range: search.get("range") ?? undefined,
    detail: search.get("detail") ?? undefined,
  });
}
