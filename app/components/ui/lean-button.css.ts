// Static styles of lean-button.tsx (MUI's Button looks), built by vanilla-extract at build time.
import { theme } from "../../mui/theme.ts";
import { sheet } from "../../styles/sheet.ts";

const p = theme.palette;
export type ButtonColor = "primary" | "secondary" | "success" | "error" | "warning" | "info";
const COLORS: ButtonColor[] = ["primary", "secondary", "success", "error", "warning", "info"];

const colorRecipe = (c: ButtonColor) => ({
  "--pdb-main": p[c].main,
  "--pdb-on": p[c].contrastText,
  "--pdb-dark": p[c].dark,
  "--pdb-border": theme.alpha(p[c].main, 0.5),
  "--pdb-hover": theme.alpha(p[c].main, p.action.hoverOpacity),
});

/** MUI's ButtonBase reset: what every lean button-like element starts from. */
export const BUTTON_BASE = {
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  position: "relative",
  boxSizing: "border-box",
  bgcolor: "transparent",
  outline: 0,
  border: 0,
  m: 0,
  cursor: "pointer",
  userSelect: "none",
  verticalAlign: "middle",
  appearance: "none",
  textDecoration: "none",
} as const;

export const B = sheet("btn", {
  root: {
    ...BUTTON_BASE,
    typography: "button",
    textTransform: "none",
    minWidth: 64,
    p: "6px 16px",
    borderRadius: 1,
    transition: theme.transitions.create(["background-color", "box-shadow", "border-color", "color"], { duration: theme.transitions.duration.short }),
    "&::-moz-focus-inner": { borderStyle: "none" },
    "&:disabled": { pointerEvents: "none", cursor: "default", color: "action.disabled" },
  },
  contained: {
    color: "var(--pdb-on)",
    bgcolor: "var(--pdb-main)",
    "@media (hover: hover)": { "&:hover": { bgcolor: "var(--pdb-dark)" } },
    "&:focus-visible": { bgcolor: "var(--pdb-dark)" },
    "&:disabled": { bgcolor: "action.disabledBackground" },
  },
  outlined: {
    p: "5px 15px",
    border: "1px solid var(--pdb-border)",
    color: "var(--pdb-main)",
    "@media (hover: hover)": { "&:hover": { bgcolor: "var(--pdb-hover)", borderColor: "var(--pdb-main)" } },
    "&:focus-visible": { bgcolor: "var(--pdb-hover)" },
    "&:disabled": { border: 1, borderColor: "action.disabledBackground" },
  },
  text: {
    p: "6px 8px",
    color: "var(--pdb-main)",
    "@media (hover: hover)": { "&:hover": { bgcolor: "var(--pdb-hover)" } },
    "&:focus-visible": { bgcolor: "var(--pdb-hover)" },
  },
  small: { fontSize: theme.typography.pxToRem(13) },
  smallContained: { p: "4px 10px" },
  smallOutlined: { p: "3px 9px" },
  smallText: { p: "4px 5px" },
  fullWidth: { width: "100%" },
  ...(Object.fromEntries(COLORS.map((c) => [c, colorRecipe(c)])) as Record<ButtonColor, ReturnType<typeof colorRecipe>>),
  // color="inherit": the text colour around it, a currentColor border, the neutral hover.
  inherit: {
    "--pdb-main": "currentColor",
    "--pdb-border": "currentColor",
    "--pdb-hover": p.action.hover,
  },
  icon: { display: "inherit", alignItems: "center", mr: 1, ml: "-4px", "& > *:nth-of-type(1)": { fontSize: 20 } },
  iconSmall: { ml: "-2px", "& > *:nth-of-type(1)": { fontSize: 18 } },
});
