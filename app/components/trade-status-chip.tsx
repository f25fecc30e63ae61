// The one trade status chip (the colours of docs/spec/screens.md#states from tradeStatusColor):
// MUI's small Chip, with a failed order's reason in MUI's Tooltip, which also makes the reason
// the chip's aria-label in the server's render.
import Chip from "@mui/material/Chip";
import Tooltip from "@mui/material/Tooltip";
import { tradeStatusColor } from "#app/core/trade-history.ts";

export function TradeStatusChip({ status, reason, testId }: { status: string; reason?: string | null; testId?: string }) {
  const color = tradeStatusColor(status);
  const chip = <Chip size="small" label={status} color={color} variant={color ? "filled" : "outlined"} data-testid={testId} />;
  return reason ? <Tooltip title={reason}>{chip}</Tooltip> : chip;
}
