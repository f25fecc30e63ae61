// Static styles of lean.tsx: the table rows' global pd-* classes, Typography, Paper, Card and
// Table looks from the app's theme, built by vanilla-extract at build time.
import { globalStyle } from "@vanilla-extract/css";
import { theme } from "../../mui/theme.ts";
import { sheet } from "../../styles/sheet.ts";
import { vars } from "../../styles/theme.css.ts";

type Decls = Record<string, string | number | undefined>;

const p = theme.palette;
const typo = (variant: "body1" | "body2" | "caption") => {
  const { fontFamily, fontWeight, fontSize, lineHeight, letterSpacing } = theme.typography[variant];
  return { fontFamily, fontWeight, fontSize, lineHeight, letterSpacing } as Decls;
};
const cellBorder = p.mode === "light" ? theme.lighten(theme.alpha(p.divider, 1), 0.88) : theme.darken(theme.alpha(p.divider, 1), 0.68);
const chipOutlineDefault = p.mode === "light" ? p.grey[400] : p.grey[700];

export type LeanColor = "primary" | "secondary" | "success" | "error" | "warning" | "info";
const COLORS: LeanColor[] = ["primary", "secondary", "success", "error", "warning", "info"];

/** One global rule; numbers are written as they are (unitless). */
const rule = (selector: string, d: Decls, media?: string) => {
  const declarations = Object.fromEntries(
    Object.entries(d)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)])
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
rule(".pd-td.pd-right", { textAlign: "right", flexDirection: "row-reverse" });
rule(".pd-nowrap", { whiteSpace: "nowrap" });
rule(".pd-num", { fontVariantNumeric: "tabular-nums" });
rule(".pd-body1", { margin: 0, ...typo("body1") });
rule(".pd-body2", { margin: 0, ...typo("body2") });
rule(".pd-caption", { margin: 0, ...typo("caption") });
rule(".pd-mono", { fontFamily: "monospace" });
rule(".pd-ml-auto", { marginLeft: "auto" });
rule(".pd-bold", { fontWeight: 600 });
rule(".pd-muted", { color: vars.palette.text.secondary });
rule(".pd-text", { color: vars.palette.text.primary });
COLORS.forEach((c) => rule(`.pd-c-${c}`, { color: vars.palette[c].main }));
rule(".pd-row", { display: "flex", flexDirection: "row", alignItems: "center" });
rule(".pd-row>*", { margin: 0 });
rule(".pd-row>*~*", { marginLeft: theme.spacing(1) });
rule(".pd-hstack", { display: "flex", alignItems: "center", gap: theme.spacing(1) });
// Chip, size small.
rule(".pd-chip", {
  maxWidth: "100%",
  fontFamily: theme.typography.fontFamily,
  fontSize: theme.typography.pxToRem(13),
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  height: "24px",
  lineHeight: 1.5,
  color: vars.palette.text.primary,
  backgroundColor: vars.palette.action.selected,
  borderRadius: "16px",
  whiteSpace: "nowrap",
  transition: theme.transitions.create(["background-color", "box-shadow"]),
  cursor: "unset",
  outline: 0,
  textDecoration: "none",
  border: 0,
  padding: 0,
  verticalAlign: "middle",
  boxSizing: "border-box",
});
rule(".pd-chip>span", { overflow: "hidden", textOverflow: "ellipsis", paddingLeft: "8px", paddingRight: "8px", whiteSpace: "nowrap" });
rule(".pd-chip.pd-outlined", { backgroundColor: "transparent", border: `1px solid ${chipOutlineDefault}` });
rule(".pd-chip.pd-outlined>span", { paddingLeft: "7px", paddingRight: "7px" });
COLORS.forEach((c) => {
  rule(`.pd-chip.pd-filled-${c}`, { backgroundColor: vars.palette[c].main, color: vars.palette[c].contrastText });
  rule(`.pd-chip.pd-outlined.pd-outlined-${c}`, { color: vars.palette[c].main, border: `1px solid ${theme.alpha(p[c].main, 0.7)}` });
});
rule(".pd-chip.pd-tag", { height: "20px", fontSize: "11px", fontWeight: 700 });
// IconButton, size small (what shows before hydration; components/ui/lean.tsx LeanIconButton).
rule(".pd-iconbtn", {
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  position: "relative",
  boxSizing: "border-box",
  WebkitTapHighlightColor: "transparent",
  backgroundColor: "transparent",
  outline: 0,
  border: 0,
  margin: 0,
  cursor: "pointer",
  userSelect: "none",
  verticalAlign: "middle",
  MozAppearance: "none",
  WebkitAppearance: "none",
  textDecoration: "none",
  textAlign: "center",
  flex: "0 0 auto",
  padding: "5px",
  borderRadius: "50%",
  color: vars.palette.action.active,
  fontSize: theme.typography.pxToRem(18),
  transition: theme.transitions.create("background-color", { duration: theme.transitions.duration.shortest }),
  printColorAdjust: "exact",
});
rule(".pd-iconbtn::-moz-focus-inner", { borderStyle: "none" });
rule(".pd-iconbtn:hover", { backgroundColor: vars.palette.action.hover });
rule(".pd-iconbtn:focus-visible", { backgroundColor: vars.palette.action.focus });
rule(".pd-iconbtn:hover", { backgroundColor: "transparent" }, "(hover: none)");
// SvgIcon, fontSize small.
rule(".pd-icon", {
  userSelect: "none",
  width: "1em",
  height: "1em",
  display: "inline-block",
  flexShrink: 0,
  transition: theme.transitions.create("fill", { duration: theme.transitions.duration.shorter }),
  fill: "currentColor",
  fontSize: theme.typography.pxToRem(20),
});
rule(".pd-icon.pd-icon-md", { fontSize: theme.typography.pxToRem(24) });

/**
 * Typography without a styled component: `T.h3`, `T.body2`, … are MUI's variants from the
 * theme (margin 0, as Typography renders them), `T.muted` its text.secondary colour, `T.noWrap` one line with an ellipsis.
 */
export const T = sheet("t", {
  h1: { typography: "h1", m: 0 },
  h2: { typography: "h2", m: 0 },
  h3: { typography: "h3", m: 0 },
  subtitle1: { typography: "subtitle1", m: 0 },
  subtitle2: { typography: "subtitle2", m: 0 },
  body1: { typography: "body1", m: 0 },
  body2: { typography: "body2", m: 0 },
  caption: { typography: "caption", m: 0 },
  muted: { color: "text.secondary" },
  noWrap: { overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" },
});

/** MUI's Paper, variant outlined (the app's theme: no elevation overlay). */
export const PAPER = sheet("paper", {
  outlined: { bgcolor: "background.paper", color: "text.primary", backgroundImage: "none", transition: theme.transitions.create("box-shadow"), borderRadius: 1, border: 1, borderColor: "divider" },
});

/** MUI's outlined Card (PAPER.outlined plus CARD.root), CardHeader and CardContent (see LeanCard). */
export const CARD = sheet("card", {
  root: { overflow: "hidden" },
  header: { display: "flex", alignItems: "center", p: 2 },
  headerText: { flex: "1 1 auto", minWidth: 0 },
  action: { flex: "0 0 auto", alignSelf: "flex-start", mt: -0.5, mr: -1, mb: -0.5 },
  subheader: { display: "block" },
  content: { p: 2, "&:last-child": { pb: 3 } },
  /** CardContent right under a header: no top padding (the app's `sx={{ pt: 0 }}`). */
  flush: { pt: 0 },
});

/** MUI's Table (a real <table>) and its head cells, size small: `<th className={cls("pd-td", TABLE.head)}>`. */
export const TABLE = sheet("table", {
  table: { display: "table", width: "100%", borderCollapse: "collapse", borderSpacing: 0 },
  head: { lineHeight: "1.5rem", fontWeight: 500 },
});
