// Stop-loss, breakeven and trailing stop of the Advanced Trading Controls. The switches
// show or hide their details; without JavaScript every detail is shown.
import Box from "@mui/material/Box";
import Collapse from "@mui/material/Collapse";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { type RulesFields, SwitchRow, firstError, initialOn, initialText } from "./form-parts.tsx";

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
        <TextField
          name={fields.stopLossOffset.name}
          id={fields.stopLossOffset.id}
          label="Stop Loss Offset %"
          type="number"
          size="small"
          fullWidth
          defaultValue={initialText(fields.stopLossOffset)}
          error={!!firstError(fields.stopLossOffset)}
          helperText={firstError(fields.stopLossOffset) ?? "Distance from the entry price"}
          slotProps={{ htmlInput: { min: 0, max: 100, step: "any" }, inputLabel: { shrink: true } }}
        />
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
            <TextField
              name={trailing.activation.name}
              id={trailing.activation.id}
              label="Activation %"
              type="number"
              size="small"
              defaultValue={String(trailing.activation.initialValue ?? "")}
              error={!!trailing.activation.errors?.length}
              helperText={trailing.activation.errors?.[0] ?? "Profit at which the trailing stop arms"}
              slotProps={{ htmlInput: { min: 0, max: 100, step: "any" }, inputLabel: { shrink: true } }}
            />
            <TextField
              name={trailing.execute.name}
              id={trailing.execute.id}
              label="Execute %"
              type="number"
              size="small"
              defaultValue={String(trailing.execute.initialValue ?? "")}
              error={!!trailing.execute.errors?.length}
              helperText={trailing.execute.errors?.[0] ?? "Retrace from the best price that closes the position"}
              slotProps={{ htmlInput: { min: 0, max: 100, step: "any" }, inputLabel: { shrink: true } }}
            />
          </Stack>
        </Collapse>
      </Box>
    </Box>
  );
}
