// Static styles of trade-history-table.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("th-table", {
  /** TableContainer; below 600 px its rows are cards (ui/phone-cards.css.ts). */
  container: { width: "100%", overflowX: "auto" },
  /** The screen's sx on its Table: `"& th, & td": { px: 1 }`. */
  table: { "& th, & td": { px: 1 } },
  /** The empty row's cell: sx py 5, centred. */
  empty: { py: 5, textAlign: "center" },
  /** The expanded row's cell: sx bgcolor action.hover, py 2. */
  detail: { bgcolor: "action.hover", py: 2 },
});
