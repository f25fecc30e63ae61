// Static styles of dashboard-screen.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("dash", {
  cards: { display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr", lg: "repeat(4, 1fr)" }, mb: 2 },
  columns: { display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", lg: "3fr 2fr" }, alignItems: "start" },
  column: { display: "grid", gap: 2, minWidth: 0 },
  bottom: { display: "grid", gap: 2, mt: 2 },
});
