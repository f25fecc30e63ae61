// The frame every screen shares: its title (h1), optional actions, and its body.
import Box from "@mui/material/Box";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";

export function Screen({ title, badge, actions, children }: { title: string; badge?: ReactNode; actions?: ReactNode; children: ReactNode }) {
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

/** An honest body for a screen whose contents are not built yet: no fake data. */
export function NotBuiltYet({ what }: { what: string }) {
  return (
    <Paper variant="outlined" sx={{ p: 4 }} data-testid="not-built-yet">
      <Typography variant="h3" component="p" gutterBottom>
        Not built yet
      </Typography>
      <Typography color="text.secondary">{what}</Typography>
    </Paper>
  );
}
