// The frame every screen shares: its title (h1), optional actions, and its body.
import Box from "@mui/material/Box";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";

export function Screen({
  title,
  badge,
  actions,
  children,
}: {
  title: string;
  badge?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Box>
      <Stack direction="row" spacing={2} sx={{ alignItems: "center", mb: 3, flexWrap: "wrap" }} useFlexGap>
        <Typography variant="h1" component="h1">
          {title}
        </Typography>
        {badge}
        <Box sx={{ flex: 1 }} />
        {actions}
      </Stack>
      {children}
    </Box>
  );
}
