// Static styles of drift-alarms.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("drifts", {
  box: {
    p: 2,
    mb: 3,
    border: "1px solid",
    borderColor: "error.main",
    borderRadius: 1,
    bgcolor: "rgba(244,67,54,0.08)",
  },
  list: { listStyle: "none", m: 0, p: 0, mt: 1, display: "grid", gap: 1 },
  row: { display: "flex", alignItems: "center", gap: 1.5, flexWrap: "wrap" },
  what: { flex: "1 1 280px" },
});
