// Static styles of performance-screen.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { VISUALLY_HIDDEN, sheet } from "../../styles/sheet.ts";

export const S = sheet("perfcharts", {
  grid: { display: "grid", gap: 2, gridTemplateColumns: { xs: "minmax(0, 1fr)", lg: "repeat(2, minmax(0, 1fr))" } },
  wide: { gridColumn: { lg: "1 / -1" } },
  ranges: { display: "flex", gap: 1, flexWrap: "wrap", alignItems: "center", mb: 2 },
  totals: { display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr 1fr", md: "repeat(4, 1fr)" }, mb: 2 },
  total: { p: 1.5, borderRadius: 1, border: 1, borderColor: "divider", bgcolor: "background.paper" },
  // minWidth: the widest axes + margins (the by-symbol chart's 110 px labels) plus room to draw;
  // narrower (a window squeezed to 1 px) x-charts computes a negative clip rectangle.
  chart: { minHeight: 120, minWidth: 160, mb: 1 },
  placeholder: {
    display: "flex",
    alignItems: "center",
    justifyContent: "center",
    color: "text.secondary",
    typography: "body2",
  },
  details: { "& > summary": { cursor: "pointer", color: "text.secondary", typography: "body2", py: 0.5 } },
  scroll: { overflowX: "auto", maxHeight: 360, overflowY: "auto" },
  empty: { py: 3, textAlign: "center" },
  srOnly: VISUALLY_HIDDEN,
  compact: { display: "grid", gap: 2, gridTemplateColumns: { xs: "minmax(0, 1fr)", md: "repeat(2, minmax(0, 1fr))" } },
});
