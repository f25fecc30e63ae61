// MUI's Button (contained, outlined or text; small or medium; the theme's colours) as a plain
// <button> with lean classes, for the buttons of server-rendered screens: an MUI Button's
// styles (every variant and colour) are serialized again on each render, ~0.1–0.2 ms per
// button (docs/benchmarks.md, "Pages (T5)"). Hover, focus and disabled looks are CSS; there
// is no ripple.
import { type ButtonHTMLAttributes, type ReactNode, forwardRef } from "react";
import { cls } from "./lean.tsx";
import { B, type ButtonColor as Color } from "./lean-button.css.ts";

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
