// Static styles of app-shell.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { theme } from "../../mui/theme.ts";
import { VISUALLY_HIDDEN, sheet } from "../../styles/sheet.ts";

export const DRAWER_WIDTH = 248;

// MUI's Toolbar: 56 px, 48 px on a landscape phone, 64 px from "sm" up. (The sx engine puts
// breakpoint blocks first, so the landscape rule names its own width range.)
const toolbarHeight = {
  minHeight: 56,
  [theme.breakpoints.up("sm")]: { minHeight: 64 },
  [`@media (orientation: landscape) and (max-width:${theme.breakpoints.values.sm - 0.05}px)`]: { minHeight: 48 },
};
const paper = { bgcolor: "background.paper", color: "text.primary", backgroundImage: "none" };

export const S = sheet("shell", {
  root: { display: "flex", minHeight: "100vh" },
  bar: {
    ...paper,
    display: "flex",
    flexDirection: "column",
    width: "100%",
    boxSizing: "border-box",
    flexShrink: 0,
    position: "fixed",
    zIndex: theme.zIndex.appBar,
    top: 0,
    left: "auto",
    right: 0,
    borderBottom: 1,
    borderColor: "divider",
    "@media print": { position: "absolute" },
    [theme.breakpoints.up("md")]: { width: `calc(100% - ${DRAWER_WIDTH}px)`, ml: `${DRAWER_WIDTH}px` },
  },
  toolbar: {
    position: "relative",
    display: "flex",
    alignItems: "center",
    gap: 1.5,
    px: 2,
    [theme.breakpoints.up("sm")]: { px: 3 },
  },
  toolbarHeight,
  phoneOnly: { [theme.breakpoints.up("md")]: { display: "none" } },
  title: { flex: 1 },
  user: { display: "flex", alignItems: "center", gap: 1 },
  username: { display: "none", [theme.breakpoints.up("sm")]: { display: "block" } },
  aside: { [theme.breakpoints.up("md")]: { width: DRAWER_WIDTH, flexShrink: 0 } },
  // Docked from "md" up. On a phone it is the navigation a browser without JavaScript opens with
  // the menu link (#navigation, :target), over a backdrop that closes it (app-shell.tsx).
  docked: {
    flex: "0 0 auto",
    display: "none",
    [theme.breakpoints.up("md")]: { display: "block" },
    "&:target": { display: "block" },
  },
  backdrop: {
    position: "fixed",
    inset: 0,
    zIndex: theme.zIndex.drawer - 1,
    bgcolor: "rgba(0, 0, 0, 0.5)",
    [theme.breakpoints.up("md")]: { display: "none" },
  },
  srOnly: VISUALLY_HIDDEN,
  drawerPaper: {
    ...paper,
    overflowY: "auto",
    display: "flex",
    flexDirection: "column",
    height: "100%",
    flex: "1 0 auto",
    zIndex: theme.zIndex.drawer,
    position: "fixed",
    top: 0,
    left: 0,
    outline: 0,
    width: DRAWER_WIDTH,
    boxSizing: "border-box",
    borderRight: 1,
    borderColor: "divider",
  },
  sidebar: { display: "flex", flexDirection: "column", height: "100%" },
  brand: { display: "flex", alignItems: "center", gap: 1.5, px: 2.5, height: 64 },
  divider: {
    m: 0,
    flexShrink: 0,
    borderWidth: 0,
    borderStyle: "solid",
    borderColor: "divider",
    borderBottomWidth: "thin",
  },
  nav: { flex: 1, overflowY: "auto", py: 1 },
  list: { listStyle: "none", m: 0, p: 0, position: "relative" },
  subheader: {
    boxSizing: "border-box",
    color: "text.secondary",
    typography: "body2",
    fontWeight: 500,
    lineHeight: "32px",
    px: 2,
    mt: 1,
  },
  link: {
    display: "flex",
    alignItems: "center",
    justifyContent: "flex-start",
    position: "relative",
    boxSizing: "border-box",
    minWidth: 0,
    textAlign: "left",
    textDecoration: "none",
    color: "inherit",
    outline: 0,
    px: 2,
    py: 0.5,
    mx: 1,
    mb: 0.25,
    borderRadius: 1,
    transition: theme.transitions.create("background-color", { duration: theme.transitions.duration.shortest }),
    "&:hover": { bgcolor: "action.hover" },
    "&:focus-visible": { bgcolor: "action.focus" },
    "&.Mui-selected": { bgcolor: theme.alpha(theme.palette.primary.main, theme.palette.action.selectedOpacity) },
    "&.Mui-selected:hover": {
      bgcolor: theme.alpha(
        theme.palette.primary.main,
        theme.palette.action.selectedOpacity + theme.palette.action.hoverOpacity,
      ),
    },
    // ListItemButton's touch reset: a tapped entry keeps no hover colour.
    "@media (hover: none)": {
      "&:hover": { bgcolor: "transparent" },
      "&.Mui-selected:hover": {
        bgcolor: theme.alpha(theme.palette.primary.main, theme.palette.action.selectedOpacity),
      },
    },
  },
  linkIcon: { minWidth: 36, color: "action.active", flexShrink: 0, display: "inline-flex" },
  linkText: { flex: "1 1 auto", minWidth: 0, my: 0.5, display: "block" },
  main: { flex: 1, minWidth: 0, p: 2, [theme.breakpoints.up("md")]: { p: 3 } },
});
