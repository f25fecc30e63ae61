// docs/spec/screens.md: a stat card has a title, value, icon, description and a status of
// success, warning, error or neutral. Plain elements with lean classes: the cards head the
// Dashboard and Trade History, which are server-rendered on every visit.
import type { ReactNode } from "react";
import { LeanCard, T, cls } from "./lean.tsx";
import { S } from "./stat-card.css.ts";

export type CardStatus = "success" | "warning" | "error" | "neutral";

/** `icon`: an SVG icon (an MUI icon or a LeanIcon medium), coloured by the status. */
export function StatCard({ title, value, icon, description, status = "neutral", testId }: { title: string; value: ReactNode; icon: ReactNode; description?: ReactNode; status?: CardStatus; testId?: string }) {
  return (
    <LeanCard data-testid={testId} data-status={status} className={S.card}>
      <div className={S.head}>
        <h6 className={cls(T.subtitle2, T.muted)}>{title}</h6>
        <div className={cls(S.icon, S[status])}>{icon}</div>
      </div>
      <p className={cls(T.h2, S.value, S[status])}>{value}</p>
      {description ? <span className={cls(T.caption, T.muted)}>{description}</span> : null}
    </LeanCard>
  );
}
