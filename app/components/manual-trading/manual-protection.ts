// What protection a new position carries, as Manual Trading (manual orders) and Webhook
// Config (signals) list it: the trading config through controlsFor(config, source), the very
// rule the worker applies when the position opens.
import { type OrderSource, controlsFor } from "#app/core/orders/controls.ts";
import type { TradingConfig } from "#app/core/schemas/trading-config.ts";
import { formatFractionPercent } from "#app/core/format.ts";

/** What a position opened by a manual order gets, line by line (controlsFor, source manual). */
export const manualProtectionLines = (config: TradingConfig) => protectionLines(config, "manual");

/** What a position opened from `source` (a signal or a manual order) gets, line by line. */
export function protectionLines(
  config: TradingConfig,
  source: Exclude<OrderSource, "rule">,
): { label: string; value: string; on: boolean }[] {
  const controls = controlsFor(config, source)!;
  const levels = controls.takeProfits?.filter((l) => l.enabled) ?? [];
  return [
    {
      label: "Take profit",
      on: levels.length > 0,
      value: !controls.takeProfits
        ? "Off"
        : levels.length === 0
          ? "No level enabled"
          : levels
              .map((l) => `${formatFractionPercent(l.portfolio, 0)} at +${formatFractionPercent(l.priceDeviation)}`)
              .join(", "),
    },
    {
      label: "Stop loss",
      on: controls.stopLossOffset !== null,
      value:
        controls.stopLossOffset !== null
          ? `${formatFractionPercent(controls.stopLossOffset)} from the entry price`
          : "Off",
    },
    {
      label: "Breakeven",
      on: controls.breakEven,
      value: controls.breakEven ? "Stop moves to the entry after the first take profit" : "Off",
    },
    {
      label: "Trailing stop",
      on: controls.trailingStop !== null,
      value: controls.trailingStop
        ? `Arms at +${formatFractionPercent(controls.trailingStop.activation)}, closes on a ${formatFractionPercent(controls.trailingStop.execute)} retrace`
        : "Off",
    },
  ];
}
