// Static styles of manual-trade-form.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { theme } from "../../mui/theme.ts";
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("order-form", {
  grid: {
    display: "grid",
    gridTemplateColumns: "1fr",
    gap: 1.5,
    [theme.breakpoints.up("sm")]: { gridTemplateColumns: "1fr 1fr" },
  },
  buttons: { display: "flex", gap: 1.5, mt: 2 },
});
