// Static styles of open-orders.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("orders", {
  head: { display: "flex", alignItems: "center", gap: 2, flexWrap: "wrap", mb: 1 },
  spacer: { flex: 1 },
  list: { listStyle: "none", m: 0, p: 0, display: "grid", gap: 1 },
  row: {
    display: "flex",
    alignItems: "center",
    gap: 2,
    flexWrap: "wrap",
    py: 0.5,
    borderBottom: "1px solid rgba(255,255,255,0.08)",
  },
  what: { flex: "1 1 240px" },
});
