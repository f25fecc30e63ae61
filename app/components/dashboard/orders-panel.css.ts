// Static styles of orders-panel.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("orders", {
  scroll: { overflowX: "auto" },
  position: { display: "flex", gap: 2, py: 0.75, borderBottom: 1, borderColor: "divider", alignItems: "center" },
  symbol: { fontWeight: 600, minWidth: 90 },
  pnl: { ml: "auto" },
});
