// The app's statically styled components ("lean": no styled component, no emotion
// serialization per element on each server render; docs/benchmarks.md, "Pages (T5)"): table
// rows and cells, Typography, Chip, IconButton, SvgIcon, Paper and Card as plain elements. Their
// classes come from ./lean.css.ts, compiled by vanilla-extract at build time into the one CSS
// bundle (decision 036); the looks follow MUI 9's from the app's theme. A screen uses either
// these or an MUI component for a widget, the same on the server and after hydration.
import { type ButtonHTMLAttributes, forwardRef, type HTMLAttributes, type ReactNode } from "react";
import { CARD, type LeanColor, PAPER, T, TABLE } from "./lean.css.ts";

export { CARD, PAPER, T, TABLE, type LeanColor };

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

