// Static styles of plain-button.tsx, built by vanilla-extract at build time: MUI's small
// outlined Button (ButtonBase's reset, Button's root, the outlined variant, size small, a
// palette colour, the theme's `textTransform: none`) resolved once against the app's theme
// (app/mui/theme.ts), so a row's button costs no emotion serialization per render (issue 24,
// docs/decisions/043-one-ui-system.md). MUI's ripple is not copied: keyboard focus shows the
// ripple's focus tint (the palette colour at focusOpacity) instead.
import { style } from "@vanilla-extract/css";
import { alpha } from "@mui/material/styles";
import { theme } from "../../mui/theme.ts";

const { palette, typography, transitions, shape } = theme;

const outlinedSmall = (main: string) =>
  style({
    // ButtonBase
    display: "inline-flex",
    alignItems: "center",
    justifyContent: "center",
    position: "relative",
    boxSizing: "border-box",
    WebkitTapHighlightColor: "transparent",
    outline: 0,
    margin: 0,
    cursor: "pointer",
    userSelect: "none",
    verticalAlign: "middle",
    appearance: "none",
    textDecoration: "none",
    // Button (theme.typography.button, the theme's textTransform none), outlined, small
    fontFamily: typography.button.fontFamily,
    fontWeight: typography.button.fontWeight as number,
    fontSize: typography.pxToRem(13),
    lineHeight: typography.button.lineHeight as number,
    // No letterSpacing: MUI sets one only for its default Roboto font (not this theme's).
    textTransform: "none",
    minWidth: 64,
    padding: "3px 9px",
    borderRadius: shape.borderRadius,
    border: `1px solid ${alpha(main, 0.5)}`,
    backgroundColor: "transparent",
    color: main,
    transition: transitions.create(["background-color", "box-shadow", "border-color", "color"], {
      duration: transitions.duration.short,
    }),
    selectors: {
      "&:focus-visible": { backgroundColor: alpha(main, palette.action.focusOpacity) },
      "&:disabled": {
        pointerEvents: "none",
        cursor: "default",
        color: palette.action.disabled,
        border: `1px solid ${palette.action.disabledBackground}`,
      },
      "&::-moz-focus-inner": { borderStyle: "none" },
    },
    "@media": {
      "(hover: hover)": {
        selectors: {
          "&:hover": { borderColor: main, backgroundColor: alpha(main, palette.action.hoverOpacity) },
        },
      },
    },
  });

/** `<Button size="small" variant="outlined" color="error">`'s look. */
export const outlinedSmallError = outlinedSmall(palette.error.main);
