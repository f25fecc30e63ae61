// MUI inputs fed by Conform field metadata: one place for ids, names, errors and a11y.
import Alert from "@mui/material/Alert";
import TextField, { type TextFieldProps } from "@mui/material/TextField";
import { type DefaultValue, type FieldMetadata, type SubmissionResult, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import type { CSSProperties, ReactNode } from "react";
import type { z } from "zod";

type FieldProps = Omit<TextFieldProps, "name" | "defaultValue" | "error"> & {
  field: FieldMetadata<string | undefined>;
};

export function Field({ field, helperText, slotProps, ...props }: FieldProps) {
  const errors = field.errors ?? [];
  return (
    <TextField
      key={field.key}
      id={field.id}
      name={field.name}
      defaultValue={field.initialValue ?? ""}
      error={errors.length > 0}
      helperText={errors[0] ?? helperText}
      fullWidth
      margin="normal"
      slotProps={{
        ...slotProps,
        htmlInput: {
          form: field.formId,
          "aria-invalid": errors.length > 0 || undefined,
          "aria-describedby": errors.length > 0 ? `${field.id}-helper-text` : undefined,
          ...(slotProps?.htmlInput as object),
        },
      }}
      {...props}
    />
  );
}

type NativeSelectProps = {
  name: string;
  label: string;
  /** With onChange: the controlled value; without: the initial one (as defaultValue). */
  value?: string;
  onChange?: (value: string) => void;
  defaultValue?: string;
  /** The field's error message, shown under it. */
  error?: string;
  testId?: string;
  size?: TextFieldProps["size"];
  margin?: TextFieldProps["margin"];
  children: ReactNode;
};

/** A full-width native <select> (it works without JavaScript) with a label that always shrinks. */
export function NativeSelect({
  name,
  label,
  value,
  onChange,
  defaultValue,
  error,
  testId,
  size,
  margin = "normal",
  children,
}: NativeSelectProps) {
  return (
    <TextField
      select
      name={name}
      label={label}
      {...(onChange
        ? { value, onChange: (e) => onChange(e.target.value) }
        : { defaultValue: defaultValue ?? value ?? "" })}
      fullWidth
      size={size}
      margin={margin}
      error={!!error}
      helperText={error}
      slotProps={{ select: { native: true }, inputLabel: { shrink: true }, htmlInput: { "data-testid": testId } }}
    >
      {children}
    </TextField>
  );
}

/** A form's own (not a field's) first error, as an error alert; nothing when there is none. */
export function FormError({ errors, mb = 1 }: { errors: string[] | undefined; mb?: number }) {
  if (!errors?.length) return null;
  return (
    <Alert severity="error" sx={{ mb }}>
      {errors[0]}
    </Alert>
  );
}

/**
 * A Conform form checked in the browser by one Zod schema (the same one the action parses with):
 * validated first on submit (or on blur), then again on every input.
 */
export function useZodForm<Input extends Record<string, unknown>, Output>({
  id,
  schema,
  lastResult,
  defaultValue,
  shouldValidate = "onSubmit",
}: {
  id: string;
  schema: z.ZodType<Output, Input>;
  lastResult: SubmissionResult<string[]> | null | undefined;
  defaultValue?: DefaultValue<Input>;
  shouldValidate?: "onSubmit" | "onBlur";
}) {
  return useForm<Input, Output>({
    id,
    lastResult,
    defaultValue,
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
    shouldValidate,
    shouldRevalidate: "onInput",
  });
}

/**
 * A plain post (it works without JavaScript) of one intent to a page's action (`action`; without
 * it, the current page's), with `values` as hidden fields in their order.
 */
export function IntentForm({
  action,
  intent,
  values = {},
  style,
  children,
}: {
  action?: string;
  intent: string;
  values?: Record<string, string>;
  style?: CSSProperties;
  children: ReactNode;
}) {
  return (
    <Form method="post" action={action} style={style}>
      <input type="hidden" name="intent" value={intent} />
      {Object.entries(values).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {children}
    </Form>
  );
}
