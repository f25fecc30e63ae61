// The app's card with a heading: MUI's outlined Card, a header (the title as an h2 in the h3
// style, an optional subheader and action) and one CardContent. `flush` drops the content's top
// padding under the header, as the dashboard's panels have it. The header is plain elements with
// MUI CardHeader's rules as static classes (./panel-card.css.ts): a CardHeader is four styled
// components (root, content, title, action) per card on every server render (decision 043).
import Card, { type CardProps } from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import type { ReactNode } from "react";
import { S } from "./panel-card.css.ts";

const FLUSH = { pt: 0 } as const;

export function PanelCard({
  title,
  subheader,
  action,
  flush,
  contentClassName,
  children,
  ...rest
}: {
  title?: ReactNode;
  subheader?: ReactNode;
  action?: ReactNode;
  flush?: boolean;
  contentClassName?: string;
  children?: ReactNode;
} & Omit<CardProps, "title">) {
  return (
    <Card variant="outlined" {...rest}>
      {title !== undefined ? (
        <div className={S.header}>
          <div className={S.content}>
            <h2 className={S.title}>{title}</h2>
            {subheader != null ? <span className={S.subheader}>{subheader}</span> : null}
          </div>
          {action ? <div className={S.action}>{action}</div> : null}
        </div>
      ) : null}
      <CardContent className={contentClassName} sx={flush ? FLUSH : undefined}>
        {children}
      </CardContent>
    </Card>
  );
}
