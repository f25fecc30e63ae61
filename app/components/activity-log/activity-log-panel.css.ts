// Static styles of activity-log-panel.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("actlog", {
  // Stack, row, spacing 1, useFlexGap.
  bar: {
    display: "flex",
    flexDirection: "row",
    gap: 1,
    alignItems: "center",
    flexWrap: "wrap",
    mb: 1.5,
  },
  grow: { flex: 1 },
  // Badge's root (with an invisible badge).
  badge: {
    position: "relative",
    display: "inline-flex",
    verticalAlign: "middle",
    flexShrink: 0,
  },
  loading: {
    display: "flex",
    flexDirection: "row",
    gap: 1.5,
    alignItems: "center",
    justifyContent: "center",
    py: 4,
  },
  empty: { py: 4, textAlign: "center" },
  list: {
    listStyle: "none",
    m: 0,
    p: 0,
    maxHeight: "24rem",
    overflowY: "auto",
    borderTop: 1,
    borderColor: "divider",
  },
  entry: { py: 1.25, px: 0.5, borderBottom: 1, borderColor: "divider" },
  head: {
    display: "flex",
    flexDirection: "row",
    gap: 1,
    alignItems: "center",
    flexWrap: "wrap",
  },
  type: { fontWeight: 600, textTransform: "uppercase", letterSpacing: 0.5 },
  message: { mt: 0.5, overflowWrap: "anywhere" },
  data: {
    display: "flex",
    flexDirection: "row",
    gap: 0.75,
    mt: 0.75,
    flexWrap: "wrap",
    alignItems: "center",
  },
  dataEntry: {
    fontFamily: "monospace",
    fontSize: 12,
    px: 0.75,
    py: 0.25,
    borderRadius: 0.5,
    bgcolor: "action.hover",
    color: "text.secondary",
    overflowWrap: "anywhere",
    // The entry's key: a bare span (no class per entry in the HTML; decision 043).
    "& > span": { color: "text.primary" },
  },
});
