// A Material icon as a plain <svg> with the static class pd-icon (app/styles/rows.css.ts: MUI
// SvgIcon's medium size, fill and transition): the same box and path as MUI's SvgIcon without
// an emotion serialization per icon on each server render (~90 µs each; decision 043). For
// icons in the pages' plain markup: the signal rows' arrows (PlainIcon), and the icons repeated
// on every page, the navigation's and the stat cards', as symbols of one cached file
// (SpriteIcon). Icons inside MUI widgets (a Button's startIcon, a Chip, an IconButton) stay
// MUI's, whose rules size them.
import type { ReactElement, ReactNode } from "react";
import { cls } from "./cls.ts";
import icons from "./icons.svg";

/** What @mui/icons-material exports: createSvgIcon's memo(forwardRef(render)) around the icon's path. */
type MuiIcon = { type?: { render?: (props: object, ref: null) => ReactElement<{ children?: ReactNode }> } };

/** The path element(s) a Material icon draws: its render function's child, called outside React (no hooks in it). */
function pathOf(icon: unknown): ReactNode {
  const render = (icon as MuiIcon).type?.render;
  if (!render) throw new Error("PlainIcon: not an @mui/icons-material icon");
  return render({}, null).props.children;
}

/**
 * SvgIcon's box around `children` (paths, or a <use> of a symbol that has its own viewBox).
 * No focusable="false": it was for Internet Explorer, which focused SVGs.
 */
export function PathIcon({
  children,
  className,
  box = true,
}: {
  children: ReactNode;
  className?: string;
  box?: boolean;
}) {
  return (
    <svg className={cls("pd-icon", className)} aria-hidden="true" viewBox={box ? "0 0 24 24" : undefined}>
      {children}
    </svg>
  );
}

const paths = new WeakMap<object, ReactNode>();

/** A plain-SVG twin of a Material icon: `<PlainIcon icon={ArrowUpward} />` (its path read once per icon). */
export function PlainIcon({ icon, className }: { icon: object; className?: string }) {
  let path = paths.get(icon);
  if (path === undefined) {
    path = pathOf(icon);
    paths.set(icon, path);
  }
  return <PathIcon className={className}>{path}</PathIcon>;
}

/**
 * A Material icon of the cached sprite ./icons.svg (a hashed /build/ asset), drawn with <use>:
 * for icons whose paths would otherwise be repeated in every page's HTML (the navigation's,
 * the dashboard's stat cards'). `id`: a symbol of icons.svg.
 */
export function SpriteIcon({ id, className }: { id: string; className?: string }) {
  return (
    <PathIcon className={className} box={false}>
      <use href={`${icons}#${id}`} />
    </PathIcon>
  );
}
