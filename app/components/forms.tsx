// MUI inputs fed by Conform field metadata: one place for ids, names, errors and a11y.
import TextField, { type TextFieldProps } from "@mui/material/TextField";
import type { FieldMetadata } from "@conform-to/react";

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
