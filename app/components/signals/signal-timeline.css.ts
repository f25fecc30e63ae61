// Static styles of signal-timeline.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("timeline", {
  list: { listStyle: "none", m: 0, p: 0, position: "relative" },
  step: {
    display: "grid",
    gridTemplateColumns: "14px minmax(0, 1fr) auto",
    columnGap: 1,
    alignItems: "baseline",
    py: 0.25,
  },
  dot: {
    width: 10,
    height: 10,
    borderRadius: "50%",
    border: "2px solid",
    borderColor: "primary.main",
    alignSelf: "center",
    boxSizing: "border-box",
  },
  done: { bgcolor: "primary.main" },
  waiting: { borderColor: "divider" },
  label: { typography: "body2", minWidth: 0, overflowWrap: "anywhere" },
  time: {
    typography: "caption",
    color: "text.secondary",
    fontFamily: "monospace",
    display: { xs: "block", sm: "inline" },
    ml: { xs: 0, sm: 1 },
  },
  delta: { typography: "body2", fontVariantNumeric: "tabular-nums", textAlign: "right", whiteSpace: "nowrap" },
  head: { typography: "caption", color: "text.secondary", mb: 0.5 },
  warn: { typography: "caption", color: "warning.main", mt: 0.5 },
  summary: { typography: "caption", color: "text.secondary", cursor: "pointer", mt: 0.5, width: "fit-content" },
});
