// The one stylesheet of the Dashboard's lean rows (components/ui/lean.tsx): the signals
// panel, Recent Orders and Performance Statistics render plain elements with these classes.
// The dashboard routes render it once, before the screen, rather than once per panel.
import { theme } from "#app/mui/theme.ts";
import { LeanStyles, rule } from "../ui/lean.tsx";

const SIGNAL_ROW_CSS = [
  rule(".pd-signal", { display: "flex", gap: theme.spacing(1.5), paddingTop: theme.spacing(1.25), paddingBottom: theme.spacing(1.25), borderBottom: "1px solid", borderColor: theme.palette.divider }),
  rule(".pd-signal-icon", { paddingTop: theme.spacing(0.25) }),
  rule(".pd-signal-main", { flex: 1, minWidth: 0 }),
  rule(".pd-signal-head", { display: "flex", alignItems: "center", gap: theme.spacing(1), flexWrap: "wrap" }),
].join("");

export function DashboardStyles() {
  return <LeanStyles extra={SIGNAL_ROW_CSS} />;
}
