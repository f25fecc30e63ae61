// Stop-loss, breakeven and trailing stop of the Advanced Trading Controls. The switches
// show or hide their details; without JavaScript every detail is shown.
import Box from "@mui/material/Box";
import Collapse from "@mui/material/Collapse";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { NumberField, type RulesFields, SwitchRow, initialOn } from "./form-parts.tsx";

export function StopControls({ fields }: { fields: RulesFields }) {
  const hydrated = useHydrated();
  const [breakEvenOn, setBreakEvenOn] = useState(initialOn(fields.breakEvenEnabled));
  const [trailingOn, setTrailingOn] = useState(initialOn(fields.trailingStopEnabled));
  const shown = (switchOn: boolean) => !hydrated || switchOn;
  const trailing = fields.trailingStop.getFieldset();
  return (
    <Box sx={{ display: "grid", gap: 2, mt: 3, gridTemplateColumns: { xs: "minmax(0, 1fr)", md: "repeat(3, minmax(0, 1fr))" }, alignItems: "start" }}>
      <Box>
        <Typography variant="subtitle2" component="h3" sx={{ mb: 1.5 }}>
          Stop Loss
        </Typography>
        <NumberField field={fields.stopLossOffset} label="Stop Loss Offset %" help="Distance from the entry price" min={0} max={100} fullWidth />
      </Box>
      <Box>
        <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
          Breakeven
        </Typography>
        <SwitchRow name="breakEvenEnabled" label="Enable Breakeven" checked={breakEvenOn} onChange={setBreakEvenOn} />
        <Collapse in={shown(breakEvenOn)} data-testid="breakeven-details" data-shown={shown(breakEvenOn) ? "true" : "false"}>
          <Typography variant="body2" color="text.secondary" sx={{ pt: 0.5 }}>
            After the first take-profit level fills, the stop-loss moves to the entry price: when the price comes back to the entry, the rest is closed at market, about break-even but less the fees and any slippage of the closing order.
          </Typography>
        </Collapse>
      </Box>
      <Box>
        <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
          Trailing Stop
        </Typography>
        <SwitchRow name="trailingStopEnabled" label="Enable Trailing Stop" checked={trailingOn} onChange={setTrailingOn} />
        <Collapse in={shown(trailingOn)} data-testid="trailing-details" data-shown={shown(trailingOn) ? "true" : "false"}>
          <Stack spacing={1.5} sx={{ pt: 1 }}>
            <NumberField field={trailing.activation} label="Activation %" help="Profit at which the trailing stop arms" min={0} max={100} />
            <NumberField field={trailing.execute} label="Execute %" help="Retrace from the best price that closes the position" min={0} max={100} />
          </Stack>
        </Collapse>
      </Box>
    </Box>
  );
}
