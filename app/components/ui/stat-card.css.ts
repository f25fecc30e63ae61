// Static styles of stat-card.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("stat", {
  card: { height: "100%" },
  head: { display: "flex", alignItems: "center", justifyContent: "space-between", mb: 1 },
  icon: { display: "flex" },
  value: { fontVariantNumeric: "tabular-nums" },
  success: { color: "success.main" },
  warning: { color: "warning.main" },
  error: { color: "error.main" },
  neutral: { color: "text.secondary" },
});
