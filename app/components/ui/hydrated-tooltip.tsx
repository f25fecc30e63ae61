// MUI's Tooltip, mounted once the page is hydrated. Before that (the server's render, a page
// without JavaScript) its child is rendered with the title as its aria-label, which is all a
// closed Tooltip renders; but a closed Tooltip still runs its Popper's styled wrapper, one
// emotion serialization of ~0.4 ms per Tooltip in every server render, on rows and on the
// sidebar's status lines of every page (decision 043). A tooltip opens on hover or focus, which
// needs JavaScript anyway.
import Tooltip, { type TooltipProps } from "@mui/material/Tooltip";
import { type ReactElement, cloneElement } from "react";
import { useHydrated } from "#app/utils/use-hydrated.ts";

export function HydratedTooltip({ title, children, ...rest }: TooltipProps) {
  const hydrated = useHydrated();
  if (hydrated)
    return (
      <Tooltip title={title} {...rest}>
        {children}
      </Tooltip>
    );
  const child = children as ReactElement<{ "aria-label"?: string }>;
  // What Tooltip gives its child while closed: the title as its name (the child's own wins).
  return typeof title === "string" && child.props["aria-label"] === undefined
    ? cloneElement(child, { "aria-label": title })
    : child;
}
