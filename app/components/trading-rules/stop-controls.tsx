// Stop-loss, breakeven and trailing stop of the Advanced Trading Controls. The switches
// show or hide their details; without JavaScript every detail is shown.
import Box from "@mui/material/Box";
import Collapse from "@mui/material/Collapse";
import Stack from "@mui/material/Stack";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { describeBreakEven } from "#app/core/rules/breakeven.ts";
import { breakEvenOffsetError, breakEvenOffsetFromForm } from "#app/core/schemas/trading-rules-form.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { NumberField, type RulesFields, SwitchRow, firstError, initialOn } from "./form-parts.tsx";

export function StopControls({ fields }: { fields: RulesFields }) {
  const hydrated = useHydrated();
  const [breakEvenOn, setBreakEvenOn] = useState(initialOn(fields.breakEvenEnabled));
  const [trailingOn, setTrailingOn] = useState(initialOn(fields.trailingStopEnabled));
  const shown = (switchOn: boolean) => !hydrated || switchOn;
  const trailing = fields.trailingStop.getFieldset();
  const offset = fields.breakEvenOffset.getFieldset();
  const [offsetUnit, setOffsetUnit] = useState(String(offset.unit.initialValue ?? "percent"));
  const [offsetValue, setOffsetValue] = useState(String(offset.value.initialValue ?? "0"));
  // What the stop covers, as the engine prices it (app/core/rules/breakeven.ts, decision 046).
  const covers = breakEvenOffsetError(offsetUnit, offsetValue)
    ? null
    : describeBreakEven(breakEvenOffsetFromForm(offsetUnit, offsetValue), null);
  return (
    <Box
      sx={{
        display: "grid",
        gap: 2,
        mt: 3,
        gridTemplateColumns: { xs: "minmax(0, 1fr)", md: "repeat(3, minmax(0, 1fr))" },
        alignItems: "start",
      }}
    >
      <Box>
        <Typography variant="subtitle2" component="h3" sx={{ mb: 1.5 }}>
          Stop Loss
        </Typography>
        <NumberField
          field={fields.stopLossOffset}
          label="Stop Loss Offset %"
          help="Distance from the entry price"
          min={0}
          max={100}
          fullWidth
        />
      </Box>
      <Box>
        <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
          Breakeven
        </Typography>
        <SwitchRow name="breakEvenEnabled" label="Enable Breakeven" checked={breakEvenOn} onChange={setBreakEvenOn} />
        <Collapse
          in={shown(breakEvenOn)}
          data-testid="breakeven-details"
          data-shown={shown(breakEvenOn) ? "true" : "false"}
        >
          <Typography variant="body2" color="text.secondary" sx={{ pt: 0.5 }}>
            After the first take-profit level fills, the stop-loss moves to the break-even price: the entry plus the
            fees of the entry and of the closing order, plus the offset below (for slippage or a small profit).
          </Typography>
          <Box sx={{ display: "grid", gap: 1.5, gridTemplateColumns: "minmax(0, 1fr) minmax(0, 1fr)", pt: 1.5 }}>
            <TextField
              select
              name={offset.unit.name}
              id={offset.unit.id}
              label="Offset unit"
              size="small"
              value={offsetUnit}
              onChange={(e) => setOffsetUnit(e.target.value)}
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            >
              <option value="percent">% of entry</option>
              <option value="ticks">Ticks</option>
            </TextField>
            <NumberField
              field={offset.value}
              label="Break-even Offset"
              help={offsetUnit === "ticks" ? "Whole price ticks, 0 to 1000" : "Percent of the entry, 0 to 5"}
              min={0}
              max={offsetUnit === "ticks" ? 1000 : 5}
              step={offsetUnit === "ticks" ? "1" : "any"}
              value={offsetValue}
              onChange={setOffsetValue}
            />
          </Box>
          {firstError(offset.value) ? null : (
            <Typography variant="body2" sx={{ pt: 1 }} data-testid="breakeven-covers">
              {covers ?? describeBreakEven(null, null)}
            </Typography>
          )}
        </Collapse>
      </Box>
      <Box>
        <Typography variant="subtitle2" component="h3" sx={{ mb: 0.5 }}>
          Trailing Stop
        </Typography>
        <SwitchRow
          name="trailingStopEnabled"
          label="Enable Trailing Stop"
          checked={trailingOn}
          onChange={setTrailingOn}
        />
        <Collapse
          in={shown(trailingOn)}
          data-testid="trailing-details"
          data-shown={shown(trailingOn) ? "true" : "false"}
        >
          <Stack spacing={1.5} sx={{ pt: 1 }}>
            <NumberField
              field={trailing.activation}
              label="Activation %"
              help="Profit at which the trailing stop arms"
              min={0}
              max={100}
            />
            <NumberField
              field={trailing.execute}
              label="Execute %"
              help="Retrace from the best price that closes the position"
              min={0}
              max={100}
            />
          </Stack>
        </Collapse>
      </Box>
    </Box>
  );
}
