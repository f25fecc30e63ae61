// Static styles of system-status.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("status", {
  block: { p: 2, borderTop: 1, borderColor: "divider" },
  row: { display: "flex", alignItems: "center", gap: 1 },
  list: { listStyle: "none", p: 0, m: 0, mt: 1, display: "flex", flexDirection: "column", gap: 0.5 },
  dot: { width: 10, height: 10, borderRadius: "50%", flexShrink: 0 },
  online: { bgcolor: "success.main" },
  warning: { bgcolor: "warning.main" },
  error: { bgcolor: "error.main" },
});
