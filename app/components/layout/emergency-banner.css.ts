// Static styles of emergency-banner.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("stopbanner", {
  banner: {
    display: "flex",
    alignItems: "center",
    gap: 1.5,
    flexWrap: "wrap",
    px: 2,
    py: 1.25,
    mb: 2,
    borderRadius: 1,
    border: 1,
    borderColor: "warning.main",
    bgcolor: "rgba(237, 108, 2, 0.12)",
  },
});
