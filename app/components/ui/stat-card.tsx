// docs/spec/screens.md: a stat card has a title, value, icon, description and a status of
// success, warning, error or neutral. MUI's outlined Card; its text is plain elements with the
// Typography variants as static classes (pd-subtitle2, pd-h2, pd-caption: app/styles/rows.css.ts),
// the layout and the status colours too (./stat-card.css.ts): three Typography per card were
// three emotion serializations in each render of the dashboard and Trade History (decision 043).
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
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
          <h6 className="pd-subtitle2 pd-muted">{title}</h6>
          <div className={`${S.icon} ${S[status]}`}>{icon}</div>
        </div>
        <p className={`pd-h2 ${S.value} ${S[status]}`}>{value}</p>
        {description ? <span className="pd-caption pd-muted">{description}</span> : null}
      </CardContent>
    </Card>
  );
}
