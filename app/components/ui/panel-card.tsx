// The app's card with a heading: MUI's outlined Card, CardHeader (the title as an h2 in the h3
// style, an optional subheader and action) and one CardContent. `flush` drops the content's top
// padding under the header, as the dashboard's panels have it.
import Card, { type CardProps } from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import CardHeader from "@mui/material/CardHeader";
import type { ReactNode } from "react";

const FLUSH = { pt: 0 } as const;
const TITLE = { title: { variant: "h3", component: "h2" } } as const;

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
        <CardHeader title={title} subheader={subheader} action={action} slotProps={TITLE} />
      ) : null}
      <CardContent className={contentClassName} sx={flush ? FLUSH : undefined}>
        {children}
      </CardContent>
    </Card>
  );
}
