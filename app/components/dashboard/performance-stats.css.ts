// Static styles of performance-stats.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("perf", {
  scroll: { overflowX: "auto" },
  message: { py: 3, textAlign: "center" },
});
