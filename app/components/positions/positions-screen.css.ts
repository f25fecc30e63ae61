// Static styles of positions-screen.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { theme } from "../../mui/theme.ts";
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("pos", {
  spacer: { flex: 1 },
  /**
   * TableContainer (an outlined Paper). From 600 px its cells are padded 8 px a side, not 16
   * (the first and last keep 16), so the twelve columns fit the 1,142 px a 1440 px screen
   * leaves (issue 25: at 16 px the table was 1,296 px and the sticky Close column covered ROI
   * and Status); narrower, the middle scrolls under the sticky Position and Close columns.
   * Below 600 px the rows are cards (ui/phone-cards.css.ts) and the Paper's frame goes: each
   * card has its own.
   */
  container: {
    width: "100%",
    overflowX: "auto",
    [theme.breakpoints.up("sm")]: {
      "& .pd-td": { px: 1 },
      "& .pd-td:first-of-type": { pl: 2 },
      "& .pd-td:last-of-type": { pr: 2 },
    },
    // Twice the class: MUI's Paper rules are one class too.
    [theme.breakpoints.down("sm")]: {
      "&&": { border: 0, bgcolor: "transparent" },
      // The card's top line: the row's arrow beside the symbol, not halfway down the stack.
      "& td:first-of-type > .pd-hstack": { alignItems: "flex-start" },
      "& td:first-of-type > .pd-hstack > svg": { mt: 0.25 },
    },
  },
  /** The screen's sx on its head cells (app/styles/rows.css.ts's pd-td is the rest). */
  th: { fontWeight: 600, lineHeight: 1.3 },
  /**
   * The symbol column stays on the left and the Close column on the right while the middle
   * scrolls (issue 11: at 1440 px the Actions column was cut off).
   */
  stickyLeft: {
    position: "sticky",
    left: 0,
    zIndex: 1,
    bgcolor: "background.paper",
    boxShadow: "1px 0 0 rgba(255,255,255,0.08)",
  },
  stickyRight: {
    position: "sticky",
    right: 0,
    zIndex: 1,
    bgcolor: "background.paper",
    boxShadow: "-1px 0 0 rgba(255,255,255,0.08)",
  },
  /** The expanded row's cell: sx bgcolor action.hover, p 0. */
  detail: { bgcolor: "action.hover", p: 0 },
  /** The error and empty Paper: p 4, centred text. */
  state: { p: 4, textAlign: "center" },
  loading: { py: 8, display: "flex", flexDirection: "column", alignItems: "center", gap: 2 },
});
