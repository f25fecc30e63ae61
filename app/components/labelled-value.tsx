// One figure of a details panel (position and trade details): a muted caption above its value.
import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";

/** `numeric` aligns digits (tabular figures); otherwise a long value (an id) may wrap anywhere. */
export function LabelledValue({
  label,
  children,
  testId,
  numeric,
}: {
  label: string;
  children: ReactNode;
  testId?: string;
  numeric?: boolean;
}) {
  return (
    <Box data-testid={testId}>
      <Typography variant="caption" color="text.secondary" component="div">
        {label}
      </Typography>
      <Typography
        variant="body2"
        component="div"
        sx={numeric ? { fontVariantNumeric: "tabular-nums" } : { overflowWrap: "anywhere" }}
      >
        {children}
      </Typography>
    </Box>
  );
}
