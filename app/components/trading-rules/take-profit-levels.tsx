// The take-profit levels of the Advanced Trading Controls: up to five levels, each the share
// of the position closed (clamped to 0–100 as it is typed, docs/spec/api.md#validation) at a price deviation,
// with the enabled levels' live total.
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Checkbox from "@mui/material/Checkbox";
import Chip from "@mui/material/Chip";
import FormControlLabel from "@mui/material/FormControlLabel";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { useState } from "react";
import { clampPortfolioPercent, enabledTotalPercent } from "#app/core/schemas/trading-rules-form.ts";
import { NumberField, type RulesFields } from "./form-parts.tsx";

export function TakeProfitLevels({ fields }: { fields: RulesFields }) {
  const levelFields = fields.takeProfits.getFieldList();
  const [levels, setLevels] = useState(() =>
    levelFields.map((lf) => {
      const set = lf.getFieldset();
      return { portfolio: String(set.portfolio.initialValue ?? ""), enabled: set.enabled.initialValue === "on" };
    }),
  );
  const total = enabledTotalPercent(levels);
  const anyEnabled = levels.some((l) => l.enabled);
  const totalOk = !anyEnabled || Math.abs(Number(total) - 100) <= 0.1;
  const tpError = fields.takeProfits.errors?.[0];
  return (
    <>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: "center", flexWrap: "wrap", mb: 1 }}>
        <Typography variant="subtitle2" component="h3">
          Take Profit Levels
        </Typography>
        <Chip
          size="small"
          data-testid="tp-total"
          color={totalOk ? "success" : "error"}
          variant="outlined"
          label={anyEnabled ? `Enabled levels total ${total}%` : "No level enabled"}
        />
      </Stack>
      {tpError ? (
        <Alert severity="error" sx={{ mb: 1.5 }} data-testid="tp-error">
          {tpError}
        </Alert>
      ) : null}
      <Stack spacing={1.5} data-testid="tp-levels">
        {levelFields.map((lf, i) => {
          const set = lf.getFieldset();
          return (
            <Box
              key={lf.key}
              data-testid="tp-level"
              sx={{
                display: "grid",
                gap: 1.5,
                alignItems: "center",
                gridTemplateColumns: { xs: "1fr 1fr", sm: "5rem 1fr 1fr auto" },
              }}
            >
              <Typography variant="body2" sx={{ fontWeight: 600, gridColumn: { xs: "1 / -1", sm: "auto" } }}>
                {`TP ${i + 1}`}
              </Typography>
              <NumberField
                field={set.portfolio}
                label="Portfolio %"
                min={0}
                max={100}
                value={levels[i]?.portfolio ?? ""}
                onChange={(raw) => {
                  // docs/spec/api.md#validation: clamped to 0..100 as it is typed (and again by the server).
                  const n = Number(raw);
                  const value =
                    raw !== "" && Number.isFinite(n) && (n < 0 || n > 100) ? (clampPortfolioPercent(raw) ?? raw) : raw;
                  setLevels((all) => all.map((l, j) => (j === i ? { ...l, portfolio: value } : l)));
                }}
              />
              <NumberField field={set.priceDeviation} label="Price Deviation %" min={0} />
              <FormControlLabel
                label="Enabled"
                control={
                  <Checkbox
                    name={set.enabled.name}
                    checked={levels[i]?.enabled ?? false}
                    onChange={(e) =>
                      setLevels((all) => all.map((l, j) => (j === i ? { ...l, enabled: e.target.checked } : l)))
                    }
                    slotProps={{ input: { "aria-label": `TP ${i + 1} enabled` } as object }}
                  />
                }
              />
            </Box>
          );
        })}
      </Stack>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
        Portfolio % is the share of the position closed at that level (clamped to 0–100); the enabled levels must total
        100%. Price deviation is the move from the entry price.
      </Typography>
    </>
  );
}
