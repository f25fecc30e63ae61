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
import { CARD, type LeanColor, PAPER, T, TABLE } from "./lean.css.ts";

export { CARD, PAPER, T, TABLE, type LeanColor };
import { tradeStatusColor } from "#app/core/trade-history.ts";

/**
 * A trade status chip for server-rendered rows, with the reason (a failed order's error) in
 * MUI's Tooltip, which renders the chip with the reason as its aria-label on the server too.
 */
export function LeanStatusChip({ status, reason, testId }: { status: string; reason?: string | null; testId?: string }) {
  const color = tradeStatusColor(status);
  const chip = <LeanChip label={status} color={color} variant={color ? "filled" : "outlined"} data-testid={testId} />;
  return reason ? <Tooltip title={reason}>{chip}</Tooltip> : chip;
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
 * MUI's IconButton (size small) as a plain button: the same look, a CSS hover and keyboard
 * focus instead of the ripple. Forwards its ref for Tooltip.
 */
export const LeanIconButton = forwardRef<HTMLButtonElement, ButtonHTMLAttributes<HTMLButtonElement>>(function LeanIconButton({ children, className, ...rest }, ref) {
  return (
    <button ref={ref} type="button" tabIndex={0} className={cls("pd-iconbtn", className)} {...rest}>
      {children}
    </button>
  );
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

