// Static styles of signals-panel.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("signal", {
  row: { display: "flex", gap: 1.5, py: 1.25, borderBottom: "1px solid", borderColor: "divider" },
  icon: { pt: 0.25 },
  main: { flex: 1, minWidth: 0 },
  head: { display: "flex", alignItems: "center", gap: 1, flexWrap: "wrap" },
  list: { maxHeight: "24rem", overflowY: "auto" },
  empty: { py: 4, textAlign: "center" },
});
