// The Amount Control section: whether and how a signal's order is sized by the rules.
import Box from "@mui/material/Box";
import Collapse from "@mui/material/Collapse";
import TextField from "@mui/material/TextField";
import { useState } from "react";
import { SIGNAL_AMOUNT_TYPES } from "#app/core/schemas/trading-config.ts";
import {
  MULTIPLIER_MAX,
  MULTIPLIER_MIN,
  SIGNAL_AMOUNT_RULES,
  type SignalAmountType,
  normalizeMultiplier,
} from "#app/core/schemas/trading-rules-form.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import {
  NumberField,
  type RulesFields,
  Section,
  SwitchRow,
  firstError,
  initialOn,
  initialText,
} from "./form-parts.tsx";

export function AmountControlSection({ fields }: { fields: RulesFields }) {
  const hydrated = useHydrated();
  const [amountOn, setAmountOn] = useState(initialOn(fields.applyAmountControlToSignals));
  const saved = initialText(fields.signalAmountType);
  const [amountType, setAmountType] = useState<SignalAmountType>(
    (SIGNAL_AMOUNT_TYPES as readonly string[]).includes(saved) ? (saved as SignalAmountType) : "multiplier",
  );
  const [multiplier, setMultiplier] = useState(initialText(fields.orderSizeMultiplier));
  // Without JavaScript nothing can hide the fields: they are always shown.
  const shown = !hydrated || amountOn;
  const rule = SIGNAL_AMOUNT_RULES[amountType];
  return (
    <Section title="Amount Control" testId="section-amount-control" description="How big an order a signal becomes.">
      <SwitchRow
        name="applyAmountControlToSignals"
        label="Apply Amount Control to Signals"
        description="Size signal orders by the rules below instead of the alert's quantity"
        checked={amountOn}
        onChange={setAmountOn}
      />
      <Collapse in={shown} data-testid="amount-control-fields" data-shown={shown ? "true" : "false"}>
        <Box
          sx={{
            display: "grid",
            gap: 2,
            gridTemplateColumns: { xs: "1fr", sm: "repeat(3, minmax(0, 1fr))", lg: "1fr" },
            pt: 1.5,
          }}
        >
          <NumberField
            field={fields.orderSizeMultiplier}
            label="Order Size Multiplier"
            help="0.01 to 10 (invalid values become 1)"
            min={MULTIPLIER_MIN}
            max={MULTIPLIER_MAX}
            step="0.01"
            value={multiplier}
            onChange={setMultiplier}
            onBlur={() => setMultiplier(normalizeMultiplier(multiplier))}
          />
          <TextField
            select
            name={fields.signalAmountType.name}
            id={fields.signalAmountType.id}
            label="Signal Amount Type"
            size="small"
            value={amountType}
            onChange={(e) => setAmountType(e.target.value as SignalAmountType)}
            error={!!firstError(fields.signalAmountType)}
            helperText={firstError(fields.signalAmountType)}
            slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          >
            <option value="multiplier">Multiplier</option>
            <option value="usd">USD</option>
            <option value="percentage">Percentage</option>
            <option value="contracts">Contracts</option>
          </TextField>
          <NumberField
            field={fields.signalAmountValue}
            label="Signal Amount Value"
            help={
              hydrated ? rule.help : "Multiplier min 0.01; USD min 1; percentage 0.1 to 100; contracts whole, min 1"
            }
            min={rule.min}
            max={rule.max ?? undefined}
            step={rule.step ?? "any"}
          />
        </Box>
      </Collapse>
    </Section>
  );
}
