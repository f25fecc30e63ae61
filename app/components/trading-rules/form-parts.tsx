// The Trading Rules form's building blocks: its sections, its labelled switches, and the
// conform field helpers the section components share.
import type { useForm } from "@conform-to/react";
import Box from "@mui/material/Box";
import FormControlLabel from "@mui/material/FormControlLabel";
import Paper from "@mui/material/Paper";
import Switch from "@mui/material/Switch";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import type { ChangeEvent, ReactNode } from "react";
import type { TradingConfig } from "#app/core/schemas/trading-config.ts";
import type { TradingRulesFormValues } from "#app/core/schemas/trading-rules-form.ts";

/** The form's fields, as conform's useForm gives them. */
export type RulesFields = ReturnType<typeof useForm<TradingRulesFormValues, Partial<TradingConfig>>>[1];

type Field = { initialValue?: unknown; errors?: string[] };
/** A switch's saved state (conform turns booleans into "on"). */
export const initialOn = (field: Field) => field.initialValue === "on";
export const initialText = (field: Field) => (typeof field.initialValue === "string" ? field.initialValue : "");
export const firstError = (field: Field) => field.errors?.[0];

export function Section({
  title,
  description,
  testId,
  wide,
  children,
}: {
  title: string;
  description?: string;
  testId: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <Paper
      variant="outlined"
      component="section"
      aria-label={title}
      data-testid={testId}
      sx={{ p: 2.5, minWidth: 0, gridColumn: wide ? { lg: "1 / -1" } : undefined }}
    >
      <Typography variant="h3" component="h2">
        {title}
      </Typography>
      {description ? (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5, mb: 1.5 }}>
          {description}
        </Typography>
      ) : null}
      {children}
    </Paper>
  );
}

/** A labelled switch: a real checkbox input (posts "on" when checked). */
export function SwitchRow({
  name,
  label,
  description,
  checked,
  defaultChecked,
  onChange,
}: {
  name: string;
  label: string;
  description?: string;
  checked?: boolean;
  defaultChecked?: boolean;
  onChange?: (checked: boolean) => void;
}) {
  return (
    <Box sx={{ py: 0.5 }}>
      <FormControlLabel
        sx={{ ml: 0, gap: 1, alignItems: "center" }}
        label={label}
        control={
          <Switch
            name={name}
            {...(checked !== undefined ? { checked } : { defaultChecked })}
            onChange={onChange ? (e) => onChange(e.target.checked) : undefined}
          />
        }
      />
      {description ? (
        <Typography variant="caption" color="text.secondary" component="p" sx={{ ml: 7.5, mt: -0.5 }}>
          {description}
        </Typography>
      ) : null}
    </Box>
  );
}

/**
 * A number field of the form (small, label always shrunk): the field's first error replaces
 * its help text. Uncontrolled from the saved value, or controlled with `value` and `onChange`.
 */
export function NumberField({
  field,
  label,
  help,
  min,
  max,
  step = "any",
  fullWidth,
  value,
  onChange,
  onBlur,
}: {
  field: Field & { name: string; id: string };
  label: string;
  help?: string;
  min?: number | string;
  max?: number | string;
  step?: string;
  fullWidth?: boolean;
  value?: string;
  onChange?: (value: string) => void;
  onBlur?: () => void;
}) {
  const error = firstError(field);
  return (
    <TextField
      name={field.name}
      id={field.id}
      label={label}
      type="number"
      size="small"
      fullWidth={fullWidth}
      {...(value !== undefined
        ? { value, onChange: (e: ChangeEvent<HTMLInputElement>) => onChange?.(e.target.value), onBlur }
        : { defaultValue: String(field.initialValue ?? "") })}
      error={!!error}
      helperText={error ?? help}
      slotProps={{ htmlInput: { min, max, step }, inputLabel: { shrink: true } }}
    />
  );
}
