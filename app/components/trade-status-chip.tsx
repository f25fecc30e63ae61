// The one trade status chip (the colours of docs/spec/screens.md#states from tradeStatusColor):
// MUI's small Chip, with a failed order's reason in MUI's Tooltip (HydratedTooltip), which also makes the reason
// the chip's aria-label in the server's render.
import Chip from "@mui/material/Chip";
import { HydratedTooltip } from "./ui/hydrated-tooltip.tsx";
import { type HTMLAttributes, forwardRef } from "react";
import { tradeStatusColor } from "#app/core/trade-history.ts";

/** A status as a row shows it: bold text in the same colours (long lists, decision 043). Forwards its ref for Tooltip. */
export const StatusLabel = forwardRef<
  HTMLSpanElement,
  { label: string; color?: string | null; testId?: string } & HTMLAttributes<HTMLSpanElement>
>(function StatusLabel({ label, color, testId, className, ...rest }, ref) {
  return (
    <span
      ref={ref}
      className={`pd-label ${color && color !== "default" ? `pd-c-${color}` : "pd-muted"}${className ? ` ${className}` : ""}`}
      data-testid={testId}
      {...rest}
    >
      {label}
    </span>
  );
});

/** A trade's status, the reason it has (shown in a tooltip) and the test id. */
interface TradeStatusProps {
  status: string;
  reason?: string | null;
  testId?: string;
}

/** TradeStatusChip's status as a row label, the reason in the same Tooltip. */
export function TradeStatusLabel({ status, reason, testId }: TradeStatusProps) {
  const label = <StatusLabel label={status} color={tradeStatusColor(status)} testId={testId} />;
  return reason ? <HydratedTooltip title={reason}>{label}</HydratedTooltip> : label;
}

export function TradeStatusChip({ status, reason, testId }: TradeStatusProps) {
  const color = tradeStatusColor(status);
  const chip = (
    <Chip size="small" label={status} color={color} variant={color ? "filled" : "outlined"} data-testid={testId} />
  );
  return reason ? <HydratedTooltip title={reason}>{chip}</HydratedTooltip> : chip;
}
