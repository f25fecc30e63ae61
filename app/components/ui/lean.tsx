// Lean table parts for the big server-rendered lists (Trade History, the Dashboard's
// panels): plain elements with fixed class names and one stylesheet, instead of an MUI
// styled component (and an emotion serialization) per cell, chip and caption. The rules copy
// what MUI 9 renders for TableRow (hover), TableCell (body, small), Typography (body1, body2,
// caption), Stack (row, spacing 1), Chip (small, filled and outlined), IconButton (small) and
// SvgIcon, all from the app's theme, so the page looks the same, pixel for pixel
// (docs/benchmarks.md, "Pages (T5)"). The rules live in the global lean stylesheet
// (./lean-sheet.ts), which every document links. Interactive MUI parts (Tooltip, IconButton's ripple) are swapped in after
// hydration: without JavaScript they do nothing anyway.
import { type ButtonHTMLAttributes, forwardRef, type HTMLAttributes, type ReactNode } from "react";
import Tooltip from "@mui/material/Tooltip";
import { theme } from "#app/mui/theme.ts";
import { leanRawCss, leanSheet } from "./lean-sheet.ts";
import { tradeStatusColor } from "#app/core/trade-history.ts";

type Decls = Record<string, string | number | undefined>;

const kebab = (key: string) => key.replace(/^(Webkit|Moz)/, (m) => `-${m.toLowerCase()}`).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const decls = (d: Decls) =>
  Object.entries(d)
    .filter(([, v]) => v !== undefined && typeof v !== "object")
    .map(([k, v]) => `${kebab(k)}:${v}`)
    .join(";");
/** One CSS rule from a style object (camelCase keys, values as CSS text; numbers unitless). */
const rule = (selector: string, d: Decls) => `${selector}{${decls(d)}}`;

const p = theme.palette;
const typo = (variant: "body1" | "body2" | "caption") => {
  const { fontFamily, fontWeight, fontSize, lineHeight, letterSpacing } = theme.typography[variant];
  return { fontFamily, fontWeight, fontSize, lineHeight, letterSpacing } as Decls;
};
const cellBorder = p.mode === "light" ? theme.lighten(theme.alpha(p.divider, 1), 0.88) : theme.darken(theme.alpha(p.divider, 1), 0.68);
const chipOutlineDefault = p.mode === "light" ? p.grey[400] : p.grey[700];

export type LeanColor = "primary" | "secondary" | "success" | "error" | "warning" | "info";
const COLORS: LeanColor[] = ["primary", "secondary", "success", "error", "warning", "info"];

const CSS = [
  rule(".pd-tr", { color: "inherit", display: "table-row", verticalAlign: "middle", outline: 0 }),
  rule(".pd-tr.pd-hover:hover", { backgroundColor: p.action.hover }),
  rule(".pd-pointer", { cursor: "pointer" }),
  rule(".pd-open>td", { borderBottom: "none" }),
  rule(".pd-td", { ...typo("body2"), display: "table-cell", verticalAlign: "inherit", borderBottom: `1px solid ${cellBorder}`, textAlign: "left", padding: "6px 16px", color: p.text.primary }),
  rule(".pd-td.pd-right", { textAlign: "right", flexDirection: "row-reverse" }),
  rule(".pd-nowrap", { whiteSpace: "nowrap" }),
  rule(".pd-num", { fontVariantNumeric: "tabular-nums" }),
  rule(".pd-body1", { margin: 0, ...typo("body1") }),
  rule(".pd-body2", { margin: 0, ...typo("body2") }),
  rule(".pd-caption", { margin: 0, ...typo("caption") }),
  rule(".pd-mono", { fontFamily: "monospace" }),
  rule(".pd-ml-auto", { marginLeft: "auto" }),
  rule(".pd-bold", { fontWeight: 600 }),
  rule(".pd-muted", { color: p.text.secondary }),
  rule(".pd-text", { color: p.text.primary }),
  ...COLORS.map((c) => rule(`.pd-c-${c}`, { color: p[c].main })),
  rule(".pd-row", { display: "flex", flexDirection: "row", alignItems: "center" }),
  rule(".pd-row>*", { margin: 0 }),
  rule(".pd-row>*~*", { marginLeft: theme.spacing(1) }),
  rule(".pd-hstack", { display: "flex", alignItems: "center", gap: theme.spacing(1) }),
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
    color: p.text.primary,
    backgroundColor: p.action.selected,
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
  }),
  rule(".pd-chip>span", { overflow: "hidden", textOverflow: "ellipsis", paddingLeft: "8px", paddingRight: "8px", whiteSpace: "nowrap" }),
  rule(".pd-chip.pd-outlined", { backgroundColor: "transparent", border: `1px solid ${chipOutlineDefault}` }),
  rule(".pd-chip.pd-outlined>span", { paddingLeft: "7px", paddingRight: "7px" }),
  ...COLORS.flatMap((c) => [
    rule(`.pd-chip.pd-filled-${c}`, { backgroundColor: p[c].main, color: p[c].contrastText }),
    rule(`.pd-chip.pd-outlined.pd-outlined-${c}`, { color: p[c].main, border: `1px solid ${theme.alpha(p[c].main, 0.7)}` }),
  ]),
  rule(".pd-chip.pd-tag", { height: "20px", fontSize: "11px", fontWeight: 700 }),
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
    color: p.action.active,
    fontSize: theme.typography.pxToRem(18),
    transition: theme.transitions.create("background-color", { duration: theme.transitions.duration.shortest }),
    printColorAdjust: "exact",
  }),
  rule(".pd-iconbtn::-moz-focus-inner", { borderStyle: "none" }),
  rule(".pd-iconbtn:hover", { backgroundColor: p.action.hover }),
  `@media (hover: none){${rule(".pd-iconbtn:hover", { backgroundColor: "transparent" })}}`,
  // SvgIcon, fontSize small.
  rule(".pd-icon", { userSelect: "none", width: "1em", height: "1em", display: "inline-block", flexShrink: 0, transition: theme.transitions.create("fill", { duration: theme.transitions.duration.shorter }), fill: "currentColor", fontSize: theme.typography.pxToRem(20) }),
  rule(".pd-icon.pd-icon-md", { fontSize: theme.typography.pxToRem(24) }),
].join("");

leanRawCss("rows", CSS);

/**
 * A trade status chip for server-rendered rows: before hydration a lean chip carrying the
 * reason as its aria-label (what MUI's Tooltip renders when closed), after it the Tooltip.
 */
export function LeanStatusChip({ status, reason, hydrated, testId }: { status: string; reason?: string | null; hydrated: boolean; testId?: string }) {
  const color = tradeStatusColor(status);
  const chip = <LeanChip label={status} color={color} variant={color ? "filled" : "outlined"} data-testid={testId} aria-label={reason && !hydrated ? reason : undefined} />;
  return reason && hydrated ? <Tooltip title={reason}>{chip}</Tooltip> : chip;
}

export const cls = (...names: (string | false | null | undefined)[]) => names.filter(Boolean).join(" ");

/** MUI's Chip (size small, not clickable) as two plain elements; forwards its ref for Tooltip. */
export const LeanChip = forwardRef<HTMLDivElement, { label: string; color?: LeanColor; variant?: "filled" | "outlined"; tag?: boolean } & HTMLAttributes<HTMLDivElement>>(function LeanChip(
  { label, color, variant = "filled", tag, className, ...rest },
  ref,
) {
  const outlined = variant === "outlined";
  return (
    <div ref={ref} className={cls("pd-chip", outlined && "pd-outlined", color && (outlined ? `pd-outlined-${color}` : `pd-filled-${color}`), tag && "pd-tag", className)} {...rest}>
      <span>{label}</span>
    </div>
  );
});

/** An MUI icon's path (or paths, for the icons drawn with several) as a small SvgIcon, without a styled component. */
export function LeanIcon({ d, medium }: { d: string | readonly string[]; medium?: boolean }) {
  return (
    <svg className={medium ? "pd-icon pd-icon-md" : "pd-icon"} focusable="false" aria-hidden="true" viewBox="0 0 24 24">
      {typeof d === "string" ? <path d={d} /> : d.map((path) => <path key={path} d={path} />)}
    </svg>
  );
}

/**
 * MUI's IconButton (size small) as a plain button, for server rendering: the page's rows
 * render this until hydration and the real IconButton (ripple, focus ripple) after it. Without
 * JavaScript the button does nothing in either form.
 */
export function LeanIconButton({ children, className, ...rest }: ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type="button" tabIndex={0} className={cls("pd-iconbtn", className)} {...rest}>
      {children}
    </button>
  );
}

/**
 * Typography without a styled component: `T.h3`, `T.body2`, … are MUI's variants from the
 * theme (margin 0, as Typography renders them), `T.muted` its text.secondary colour, `T.noWrap` one line with an ellipsis.
 */
export const T = leanSheet("t", {
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
export const PAPER = leanSheet("paper", {
  outlined: { bgcolor: "background.paper", color: "text.primary", backgroundImage: "none", transition: theme.transitions.create("box-shadow"), borderRadius: 1, border: 1, borderColor: "divider" },
});

/** MUI's outlined Card (PAPER.outlined plus CARD.root), CardHeader and CardContent (see LeanCard). */
export const CARD = leanSheet("card", {
  root: { overflow: "hidden" },
  header: { display: "flex", alignItems: "center", p: 2 },
  headerText: { flex: "1 1 auto", minWidth: 0 },
  action: { flex: "0 0 auto", alignSelf: "flex-start", mt: -0.5, mr: -1, mb: -0.5 },
  subheader: { display: "block" },
  content: { p: 2, "&:last-child": { pb: 3 } },
  /** CardContent right under a header: no top padding (the app's `sx={{ pt: 0 }}`). */
  flush: { pt: 0 },
});

/**
 * An outlined MUI Card with an optional header (title as an h2 in the h3 style, subheader,
 * action) and one content block, as plain elements. `contentClassName` adds to the content's
 * classes (CARD.flush under a header is the usual one).
 */
export function LeanCard({
  title,
  subheader,
  action,
  children,
  contentClassName,
  className,
  ...rest
}: { title?: ReactNode; subheader?: ReactNode; action?: ReactNode; contentClassName?: string } & HTMLAttributes<HTMLDivElement>) {
  return (
    <div className={cls(PAPER.outlined, CARD.root, className)} {...rest}>
      {title !== undefined ? (
        <div className={CARD.header}>
          <div className={CARD.headerText}>
            <h2 className={T.h3}>{title}</h2>
            {subheader ? <span className={cls(T.body1, T.muted, CARD.subheader)}>{subheader}</span> : null}
          </div>
          {action ? <div className={CARD.action}>{action}</div> : null}
        </div>
      ) : null}
      <div className={cls(CARD.content, contentClassName)}>{children}</div>
    </div>
  );
}

/** MUI's Table (a real <table>) and its head cells, size small: `<th className={cls("pd-td", TABLE.head)}>`. */
export const TABLE = leanSheet("table", {
  table: { display: "table", width: "100%", borderCollapse: "collapse", borderSpacing: 0 },
  head: { lineHeight: "1.5rem", fontWeight: 500 },
});
