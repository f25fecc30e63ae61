// MUI's outlined TextField (size small, label always shrunk) as plain elements with lean
// classes, for forms on server-rendered screens: an MUI TextField is six styled components,
// which made the Dashboard's order form the page's most expensive part to render
// (docs/benchmarks.md, "Pages (T5)"). Focus, hover, error and disabled looks are CSS
// (:focus-within, :hover, a class), so they need no JavaScript; `select` renders a native
// <select>, as the app's forms already do so that they work without JavaScript.
import { type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, useId } from "react";
import { theme } from "#app/mui/theme.ts";
import { cls } from "./lean.tsx";
import { leanSheet } from "./lean-sheet.ts";

const p = theme.palette;
// OutlinedInput's border colour (a light theme's is black at 0.23, not transparent white).
const OUTLINE = p.mode === "light" ? "rgba(0, 0, 0, 0.23)" : "rgba(255, 255, 255, 0.23)";

const F = leanSheet("field", {
  root: { display: "inline-flex", flexDirection: "column", position: "relative", minWidth: 0, p: 0, m: 0, border: 0, verticalAlign: "top" },
  fullWidth: { width: "100%" },
  label: {
    typography: "body1",
    color: "text.secondary",
    lineHeight: "1.4375em",
    p: 0,
    display: "block",
    transformOrigin: "top left",
    whiteSpace: "nowrap",
    overflow: "hidden",
    textOverflow: "ellipsis",
    position: "absolute",
    left: 0,
    top: 0,
    transform: "translate(14px, -9px) scale(0.75)",
    maxWidth: "calc(133% - 32px)",
    zIndex: 1,
    userSelect: "none",
    transition: theme.transitions.create(["color", "transform", "max-width"], { duration: theme.transitions.duration.shorter, easing: theme.transitions.easing.easeOut }),
  },
  base: {
    typography: "body1",
    lineHeight: "1.4375em",
    color: "text.primary",
    boxSizing: "border-box",
    position: "relative",
    cursor: "text",
    display: "inline-flex",
    alignItems: "center",
    borderRadius: 1,
    "&:hover > fieldset": { borderColor: "text.primary" },
    "@media (hover: none)": { "&:hover > fieldset": { borderColor: OUTLINE } },
    "&:focus-within > fieldset": { borderColor: "primary.main", borderWidth: 2 },
  },
  withEnd: { pr: "14px" },
  input: {
    font: "inherit",
    letterSpacing: "inherit",
    color: "currentColor",
    border: 0,
    boxSizing: "content-box",
    background: "none",
    height: "1.4375em",
    m: 0,
    display: "block",
    minWidth: 0,
    width: "100%",
    p: "8.5px 14px",
    "&:focus": { outline: 0 },
    "&::placeholder": { color: "currentColor", opacity: 0.5 },
    "&:disabled": { opacity: 1, WebkitTextFillColor: p.text.disabled },
  },
  inputWithEnd: { pr: 0 },
  select: { userSelect: "none", borderRadius: 1, cursor: "pointer", appearance: "none", pr: "32px", "& option": { bgcolor: "background.paper" } },
  selectIcon: {
    userSelect: "none",
    width: "1em",
    height: "1em",
    display: "inline-block",
    flexShrink: 0,
    fill: "currentColor",
    fontSize: "1.5rem",
    position: "absolute",
    right: 7,
    top: "calc(50% - .5em)",
    pointerEvents: "none",
    color: "action.active",
  },
  outline: {
    textAlign: "left",
    position: "absolute",
    bottom: 0,
    right: 0,
    top: -5,
    left: 0,
    m: 0,
    p: "0 8px",
    pointerEvents: "none",
    borderRadius: "inherit",
    borderStyle: "solid",
    borderWidth: 1,
    overflow: "hidden",
    minWidth: "0%",
    borderColor: OUTLINE,
  },
  legend: {
    float: "unset",
    width: "auto",
    overflow: "hidden",
    display: "block",
    p: 0,
    height: 11,
    fontSize: "0.75em",
    visibility: "hidden",
    maxWidth: "100%",
    whiteSpace: "nowrap",
    "& > span": { px: "5px", display: "inline-block", opacity: 0, visibility: "visible" },
  },
  helper: { typography: "caption", color: "text.secondary", textAlign: "left", mt: "3px", mx: "14px", mb: 0 },
  // States: error and disabled win over focus and hover.
  error: {
    [`& > label`]: { color: "error.main" },
    [`& > div > fieldset, & > div:hover > fieldset, & > div:focus-within > fieldset`]: { borderColor: "error.main" },
    [`& > p`]: { color: "error.main" },
  },
  disabled: {
    [`& > label`]: { color: "text.disabled" },
    [`& > div`]: { color: "text.disabled", cursor: "default" },
    [`& > div > fieldset, & > div:hover > fieldset`]: { borderColor: "action.disabled" },
  },
});
// Focus colours the label (MUI's Mui-focused), unless the field is in error.
const FOCUS = leanSheet("field-focus", { root: { [`&:focus-within:not(.${F.error}) > label`]: { color: "primary.main" } } });

interface Common {
  label: string;
  error?: boolean;
  helperText?: ReactNode;
  fullWidth?: boolean;
  className?: string;
  /** Something at the input's end (MUI's endAdornment), e.g. a copy button. */
  endAdornment?: ReactNode;
}

type LeanTextFieldProps = Common &
  (
    | ({ select?: false } & Omit<InputHTMLAttributes<HTMLInputElement>, "className">)
    | ({ select: true; children: ReactNode } & Omit<SelectHTMLAttributes<HTMLSelectElement>, "className">)
  );

/** An outlined, small MUI TextField with its label shrunk; `select` for a native select. */
export function LeanTextField(props: LeanTextFieldProps) {
  const { label, error, helperText, fullWidth, className, endAdornment, select, ...control } = props;
  const autoId = useId();
  const id = control.id ?? autoId;
  const helperId = helperText ? `${id}-helper-text` : undefined;
  const shared = { id, "aria-invalid": Boolean(error), "aria-describedby": helperId };
  return (
    <div className={cls(F.root, FOCUS.root, fullWidth && F.fullWidth, error && F.error, control.disabled && F.disabled, className)}>
      <label className={F.label} htmlFor={id} id={`${id}-label`}>
        {label}
      </label>
      <div className={cls(F.base, endAdornment ? F.withEnd : undefined)}>
        {select ? (
          <>
            <select {...(control as SelectHTMLAttributes<HTMLSelectElement>)} {...shared} className={cls(F.input, F.select)} />
            <svg className={F.selectIcon} focusable="false" aria-hidden="true" viewBox="0 0 24 24">
              <path d="M7 10l5 5 5-5z" />
            </svg>
          </>
        ) : (
          <input type="text" {...(control as InputHTMLAttributes<HTMLInputElement>)} {...shared} className={cls(F.input, endAdornment ? F.inputWithEnd : undefined)} />
        )}
        {endAdornment}
        <fieldset aria-hidden="true" className={F.outline}>
          <legend className={F.legend}>
            <span>{label}</span>
          </legend>
        </fieldset>
      </div>
      {helperText ? (
        <p className={F.helper} id={helperId}>
          {helperText}
        </p>
      ) : null}
    </div>
  );
}
