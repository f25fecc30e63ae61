// SPEC.md §2: a stat card has a title, value, icon, description and a status of
// success, warning, error or neutral.
import Box from "@mui/material/Box";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";

export type CardStatus = "success" | "warning" | "error" | "neutral";

const COLOR: Record<CardStatus, string> = { success: "success.main", warning: "warning.main", error: "error.main", neutral: "text.secondary" };

export function StatCard({ title, value, icon, description, status = "neutral", testId }: { title: string; value: ReactNode; icon: ReactNode; description?: ReactNode; status?: CardStatus; testId?: string }) {
  return (
    <Card variant="outlined" data-testid={testId} data-status={status} sx={{ height: "100%" }}>
      <CardContent>
        <Box sx={{ display: "flex", alignItems: "center", justifyContent: "space-between", mb: 1 }}>
          <Typography variant="subtitle2" color="text.secondary">
            {title}
          </Typography>
          <Box sx={{ color: COLOR[status], display: "flex" }}>{icon}</Box>
        </Box>
        <Typography variant="h2" component="p" sx={{ color: COLOR[status], fontVariantNumeric: "tabular-nums" }}>
          {value}
        </Typography>
        {description ? (
          <Typography variant="caption" color="text.secondary">
            {description}
          </Typography>
        ) : null}
      </CardContent>
    </Card>
  );
}
