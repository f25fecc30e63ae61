// Static styles of dashboard-header.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("dash-head", {
  bar: { display: "flex", alignItems: "center", gap: 2, flexWrap: "wrap", mb: 3 },
  spacer: { flex: 1 },
  controls: { display: "flex", gap: 1, flexWrap: "wrap", alignItems: "center" },
});
