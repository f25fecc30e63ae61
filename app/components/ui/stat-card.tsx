// docs/spec/screens.md: a stat card has a title, value, icon, description and a status of
// success, warning, error or neutral. MUI's outlined Card and Typography; the layout and the
// status colours are static classes (./stat-card.css.ts).
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import Typography from "@mui/material/Typography";
import type { ReactNode } from "react";
import { S } from "./stat-card.css.ts";

export type CardStatus = "success" | "warning" | "error" | "neutral";

/** `icon`: an MUI icon, coloured by the status. */
export function StatCard({
  title,
  value,
  icon,
  description,
  status = "neutral",
  testId,
}: {
  title: string;
  value: ReactNode;
  icon: ReactNode;
  description?: ReactNode;
  status?: CardStatus;
  testId?: string;
}) {
  return (
    <Card variant="outlined" data-testid={testId} data-status={status} className={S.card}>
      <CardContent>
        <div className={S.head}>
          <Typography variant="subtitle2" component="h6" color="text.secondary">
            {title}
          </Typography>
          <div className={`${S.icon} ${S[status]}`}>{icon}</div>
        </div>
        <Typography variant="h2" component="p" className={`${S.value} ${S[status]}`}>
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
