// The rows of the long server-rendered lists (Trade History, Activity Log, the dashboard's and
// Positions' tables, the signal rows): plain <tr>/<td> inside an MUI <Table>, and their text, as
// global pd-* classes built once by vanilla-extract into the static CSS bundle (decision 043).
// An MUI TableCell or Typography runs emotion's style serialization on every server render
// (~25–50 µs each, hundreds per page); these rows cost nothing per render. Every widget
// (chips, buttons, cards, fields, icons) is MUI's own component.
import { globalStyle } from "@vanilla-extract/css";
import { theme } from "../mui/theme.ts";
import { vars } from "./theme.css.ts";

type Decls = Record<string, string | number | undefined>;

const p = theme.palette;
const typo = (variant: "body1" | "body2" | "caption" | "subtitle2" | "h2") => {
  const { fontFamily, fontWeight, fontSize, lineHeight, letterSpacing } = theme.typography[variant];
  return { fontFamily, fontWeight, fontSize, lineHeight, letterSpacing } as Decls;
};
const cellBorder =
  p.mode === "light" ? theme.lighten(theme.alpha(p.divider, 1), 0.88) : theme.darken(theme.alpha(p.divider, 1), 0.68);
const COLORS = ["primary", "secondary", "success", "error", "warning", "info"] as const;

/** One global rule; numbers are written as they are (unitless). */
const rule = (selector: string, d: Decls, media?: string) => {
  const declarations = Object.fromEntries(
    Object.entries(d)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
  globalStyle(selector, media ? { "@media": { [media]: declarations } } : declarations);
};

rule(".pd-tr", { color: "inherit", display: "table-row", verticalAlign: "middle", outline: 0 });
rule(".pd-tr.pd-hover:hover", { backgroundColor: vars.palette.action.hover });
rule(".pd-pointer", { cursor: "pointer" });
rule(".pd-open>td", { borderBottom: "none" });
rule(".pd-td", {
  ...typo("body2"),
  display: "table-cell",
  verticalAlign: "inherit",
  borderBottom: `1px solid ${cellBorder}`,
  textAlign: "left",
  padding: "6px 16px",
  color: vars.palette.text.primary,
});
// A head cell (MUI's TableCell in a TableHead).
rule(".pd-td.pd-th", { lineHeight: "1.5rem", fontWeight: 500 });
rule(".pd-td.pd-right", { textAlign: "right", flexDirection: "row-reverse" });
rule(".pd-nowrap", { whiteSpace: "nowrap" });
rule(".pd-num", { fontVariantNumeric: "tabular-nums" });
rule(".pd-body1", { margin: 0, ...typo("body1") });
rule(".pd-body2", { margin: 0, ...typo("body2") });
rule(".pd-caption", { margin: 0, ...typo("caption") });
// A stat card's title and figure (app/components/ui/stat-card.tsx).
rule(".pd-subtitle2", { margin: 0, ...typo("subtitle2") });
rule(".pd-h2", { margin: 0, ...typo("h2") });
rule(".pd-mono", { fontFamily: "monospace" });
rule(".pd-ml-auto", { marginLeft: "auto" });
rule(".pd-bold", { fontWeight: 600 });
rule(".pd-muted", { color: vars.palette.text.secondary });
rule(".pd-text", { color: vars.palette.text.primary });
for (const c of COLORS) rule(`.pd-c-${c}`, { color: vars.palette[c].main });
// A row's status, side or level: bold text in the status colour (a text label, not a chip;
// MUI's Chip costs ~0.2 ms of server render each, decision 043).
// A Material icon as plain SVG (app/components/ui/plain-icon.tsx): MUI SvgIcon's medium rules.
rule(".pd-icon", {
  userSelect: "none",
  width: "1em",
  height: "1em",
  display: "inline-block",
  flexShrink: 0,
  transition: theme.transitions.create("fill", { duration: theme.transitions.duration.shorter }),
  fill: "currentColor",
  fontSize: theme.typography.pxToRem(24),
});
// A text link in a row (MUI Link's "always" underline, primary colour).
rule(".pd-link", {
  color: vars.palette.primary.main,
  textDecoration: "underline",
  textDecorationColor: theme.alpha(p.primary.main, 0.4),
});
rule(".pd-link:hover", { textDecorationColor: "inherit" });
rule(".pd-label", { margin: 0, ...typo("caption"), fontWeight: 700, letterSpacing: "0.04em", whiteSpace: "nowrap" });
rule(".pd-row", { display: "flex", flexDirection: "row", alignItems: "center" });
rule(".pd-row>*", { margin: 0 });
rule(".pd-row>*~*", { marginLeft: theme.spacing(1) });
rule(".pd-hstack", { display: "flex", alignItems: "center", gap: theme.spacing(1) });
