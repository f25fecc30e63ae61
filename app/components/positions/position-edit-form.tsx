// Editing one open position in place (issue 25, docs/decisions/048-edit-a-position.md), opened
// by the position's Edit link (/positions?edit=<id>) and rendered by the server: a plain form
// that posts intent=edit to the Positions action, so it works without JavaScript; with it the
// same post, checked first by the schema the server uses (app/core/schemas/position-edit.ts).
// Below it the partial close (intent=close-part: a quantity or a percent of what remains).
import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Checkbox from "@mui/material/Checkbox";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { Form } from "@remix-run/react";
import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import {
  type EditField,
  PositionEditSchema,
  type PositionEditView,
  editFieldId,
  positionEditFromForm,
  positionEditHref,
} from "#app/core/schemas/position-edit.ts";

export interface PositionEditError {
  id: string;
  error: string;
  field: string | null;
  values: Record<string, string>;
  tpPrices: string[];
  tpCloses: string[];
}

/** Blank rows offered for new take-profit levels. */
const BLANK_LEVELS = 2;

export function PositionEditForm({
  position,
  posted,
  focus = null,
  back = null,
}: {
  position: PositionEditView;
  posted?: PositionEditError | null;
  /** The field to land on (a price chart's mark opened the form on it): its control's id is the link's fragment. */
  focus?: EditField | null;
  /** Where a save and Cancel return (the chart the form was opened from); else Positions. */
  back?: string | null;
}) {
  const [clientError, setClientError] = useState<string | null>(null);
  const again = posted && posted.id === position.id ? posted : null;
  const value = (name: keyof PositionEditView & string, fallback: string) =>
    again ? (again.values[name] ?? "") : fallback;
  const levels = again
    ? again.tpPrices.map((price, i) => ({ price, close: again.tpCloses[i] ?? "" }))
    : [...position.levels, ...Array.from({ length: BLANK_LEVELS }, () => ({ price: "", close: "" }))];
  const levelIds = again ? [] : position.levels.map((l) => editFieldId(`tp${l.n}`));
  // The editable levels are numbered after the ones already filled or closing (TP1 filled: 2, 3 ...).
  const first = position.lockedLevels.length + 1;
  // Without JavaScript the link's fragment scrolls to the field; with it the field takes the focus too.
  useEffect(() => {
    if (!focus) return;
    const control = document.getElementById(editFieldId(focus));
    control?.scrollIntoView({ block: "center" });
    control?.focus();
  }, [focus]);
  const checked = (name: "breakEven" | "trailing") => (again ? again.values[name] === "on" : position[name]);
  /** A plain decimal setting of the position, shown as posted when the form comes back. */
  const decimal = (name: "breakEvenOffset" | "trailingActivation" | "trailingRetrace", label: string) => (
    <TextField
      name={name}
      label={label}
      size="small"
      defaultValue={value(name, position[name])}
      slotProps={{ htmlInput: { inputMode: "decimal" } }}
    />
  );
  const long = position.side === "long";
  const error = clientError ?? again?.error ?? null;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const parsed = PositionEditSchema.safeParse(positionEditFromForm(new FormData(event.currentTarget)));
    if (!parsed.success) {
      event.preventDefault();
      setClientError(parsed.error.issues[0]?.message ?? "Invalid input");
    } else setClientError(null);
  };

  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }} data-testid="position-edit">
      <Typography variant="h6" component="h2">
        Edit {position.symbol} {position.side.toUpperCase()} {position.remainingQuantity}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        Entry {position.entryPrice} · current {position.currentPrice ?? "—"}. A {position.side}'s stop lies{" "}
        {long ? "below" : "above"} the current price (past the entry it locks in a profit), its take-profit levels{" "}
        {long ? "above" : "below"} the entry and the current price. The old stop stays in force until the new one is
        stored.
      </Typography>
      {error ? (
        <Alert severity="error" sx={{ mb: 1 }} data-testid="position-edit-error">
          {error}
        </Alert>
      ) : null}
      <Form method="post" action={positionEditHref(position.id, { back })} onSubmit={onSubmit} noValidate>
        <input type="hidden" name="intent" value="edit" />
        <input type="hidden" name="id" value={position.id} />
        <input type="hidden" name="takeProfitsFrom" value={first} />
        {back ? <input type="hidden" name="back" value={back} /> : null}
        <Box sx={{ display: "grid", gap: 1.5, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr" }, maxWidth: 720 }}>
          <TextField
            id={editFieldId("stopLoss")}
            name="stopLoss"
            label="Stop loss (price, blank: none)"
            size="small"
            defaultValue={value("stopLoss", position.stopLoss)}
            error={again?.field === "stopLoss"}
            helperText={
              position.breakEvenTriggered
                ? "At break-even since TP1 filled: only a tighter stop is taken"
                : `May lie past the entry (locks in a profit) while ${long ? "below" : "above"} the current price`
            }
            slotProps={{ htmlInput: { inputMode: "decimal", "data-testid": "edit-stop-loss" } }}
          />
          <Box />
          {position.lockedLevels.map((l) => (
            <Typography key={l.n} variant="body2" sx={{ gridColumn: "1 / -1" }} data-testid="edit-locked-level">
              TP{l.n} {l.price}, closes {l.close} %: {l.state}
            </Typography>
          ))}
          {levels.map((l, i) => (
            <Box key={i} sx={{ display: "contents" }}>
              <TextField
                id={levelIds[i]}
                name="tpPrice"
                label={`Take-profit ${first + i} price`}
                size="small"
                defaultValue={l.price}
                error={again?.field === `takeProfits.${i}.price`}
                slotProps={{ htmlInput: { inputMode: "decimal", "data-testid": `edit-tp-price-${i}` } }}
              />
              <TextField
                name="tpClose"
                label={`Take-profit ${first + i} closes %`}
                size="small"
                defaultValue={l.close}
                error={again?.field === `takeProfits.${i}.close`}
                slotProps={{ htmlInput: { inputMode: "decimal", "data-testid": `edit-tp-close-${i}` } }}
              />
            </Box>
          ))}
          <ProtectionSwitch name="breakEven" label="Break-even after TP1" ariaLabel="Break-even" checked={checked}>
            {decimal("breakEvenOffset", "Break-even offset")}
            <TextField
              name="breakEvenOffsetUnit"
              label="Unit"
              size="small"
              select
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
              defaultValue={value("breakEvenOffsetUnit", position.breakEvenOffsetUnit)}
            >
              <option value="ticks">ticks</option>
              <option value="percent">%</option>
            </TextField>
          </ProtectionSwitch>
          <ProtectionSwitch name="trailing" label="Trailing stop" ariaLabel="Trailing stop" checked={checked}>
            {decimal("trailingActivation", "Activation %")}
            {decimal("trailingRetrace", "Distance %")}
          </ProtectionSwitch>
        </Box>
        <Box sx={{ display: "flex", gap: 1, mt: 2 }}>
          <Button type="submit" variant="contained" data-testid="edit-save">
            Save changes
          </Button>
          <Button href={back ?? "/positions"} variant="text">
            Cancel
          </Button>
        </Box>
      </Form>
      <Form method="post" action="/positions">
        <input type="hidden" name="intent" value="close-part" />
        <input type="hidden" name="symbol" value={position.symbol} />
        <input type="hidden" name="back" value="/positions" />
        <Box sx={{ display: "flex", gap: 1, mt: 2, alignItems: "center", flexWrap: "wrap" }}>
          <Typography variant="body2">Close part of it:</Typography>
          <TextField
            name="amount"
            label="Amount"
            size="small"
            slotProps={{ htmlInput: { inputMode: "decimal", "data-testid": "close-part-amount" } }}
          />
          <TextField
            name="unit"
            label="As"
            size="small"
            select
            slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            defaultValue="percent"
          >
            <option value="percent">% of what remains</option>
            <option value="quantity">quantity</option>
          </TextField>
          <Button type="submit" variant="outlined" color="error" data-testid="close-part-submit">
            Close part
          </Button>
        </Box>
      </Form>
    </Paper>
  );
}

/** A protection's switch (break-even, trailing stop) and, beside it, the settings it takes. */
function ProtectionSwitch({
  name,
  label,
  ariaLabel,
  checked,
  children,
}: {
  name: "breakEven" | "trailing";
  label: string;
  ariaLabel: string;
  checked: (name: "breakEven" | "trailing") => boolean;
  children: ReactNode;
}) {
  return (
    <>
      <FormControlLabel
        control={
          <Checkbox
            id={editFieldId(name)}
            name={name}
            defaultChecked={checked(name)}
            slotProps={{ input: { "aria-label": ariaLabel } }}
          />
        }
        label={label}
      />
      <Box sx={{ display: "flex", gap: 1 }}>{children}</Box>
    </>
  );
}
