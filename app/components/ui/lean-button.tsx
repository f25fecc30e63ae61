// MUI's Button (contained, outlined or text; small or medium; the theme's colours) as a plain
// <button> with lean classes, for the buttons of server-rendered screens: an MUI Button's
// styles (every variant and colour) are serialized again on each render, ~0.1–0.2 ms per
// button (docs/benchmarks.md, "Pages (T5)"). Hover, focus and disabled looks are CSS; there
// is no ripple.
import { type ButtonHTMLAttributes, type ReactNode, forwardRef } from "react";
import { theme } from "#app/mui/theme.ts";
import { cls } from "./lean.tsx";
import { leanSheet } from "./lean-sheet.ts";

const p = theme.palette;
type Color = "primary" | "secondary" | "success" | "error" | "warning" | "info";
const COLORS: Color[] = ["primary", "secondary", "success", "error", "warning", "info"];

const colorRecipe = (c: Color) => ({
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

const B = leanSheet("btn", {
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
  ...(Object.fromEntries(COLORS.map((c) => [c, colorRecipe(c)])) as Record<Color, ReturnType<typeof colorRecipe>>),
  // color="inherit": the text colour around it, a currentColor border, the neutral hover.
  inherit: {
    "--pdb-main": "currentColor",
    "--pdb-border": "currentColor",
    "--pdb-hover": p.action.hover,
  },
  icon: { display: "inherit", alignItems: "center", mr: 1, ml: "-4px", "& > *:nth-of-type(1)": { fontSize: 20 } },
  iconSmall: { ml: "-2px", "& > *:nth-of-type(1)": { fontSize: 18 } },
});

export interface LeanButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: "contained" | "outlined" | "text";
  color?: Color | "inherit";
  size?: "small" | "medium";
  fullWidth?: boolean;
  startIcon?: ReactNode;
}

/** The classes of a LeanButton, for another element with a button's look (a link). */
export function leanButtonClass({ variant = "text", color = "primary", size = "medium", fullWidth }: Pick<LeanButtonProps, "variant" | "color" | "size" | "fullWidth"> = {}) {
  const small = size === "small";
  const smallVariant = variant === "contained" ? B.smallContained : variant === "outlined" ? B.smallOutlined : B.smallText;
  return cls(B.root, B[variant], small && B.small, small && smallVariant, fullWidth && B.fullWidth, B[color]);
}

export const LeanButton = forwardRef<HTMLButtonElement, LeanButtonProps>(function LeanButton(
  { variant, color, size = "medium", fullWidth, startIcon, className, children, type = "button", ...rest },
  ref,
) {
  const small = size === "small";
  return (
    <button ref={ref} type={type} className={cls(leanButtonClass({ variant, color, size, fullWidth }), className)} {...rest}>
      {startIcon ? <span className={cls(B.icon, small && B.iconSmall)}>{startIcon}</span> : null}
      {children}
    </button>
  );
});
