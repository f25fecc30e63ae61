// The trade status chip of client-rendered panels (position and trade details): SPEC.md §4's
// colours (tradeStatusColor, shared with the server-rendered rows' LeanStatusChip), the
// failure reason as a tooltip.
import Chip from "@mui/material/Chip";
import Tooltip from "@mui/material/Tooltip";
import { tradeStatusColor } from "#app/core/trade-history.ts";

export function TradeStatusChip({ status, reason, testId }: { status: string; reason?: string | null; testId?: string }) {
  const color = tradeStatusColor(status);
  const chip = <Chip size="small" label={status} color={color} variant={color ? "filled" : "outlined"} data-testid={testId} />;
  return reason ? <Tooltip title={reason}>{chip}</Tooltip> : chip;
}
