// A long list's table laid out as cards on a phone (below 600 px, MUI's sm), by CSS alone
// (issue 24's fourth pass, docs/decisions/043-one-ui-system.md): ONE markup per row, the
// table's own <tr>/<td>, so a page renders each row once and the cards work without JavaScript.
// From 600 px nothing here applies: the table is exactly the table. Below:
// - the head row is visually hidden (screen readers still have it), the table and body blocks;
// - each row is a card with MUI's outlined Paper rules (the theme's radius, divider border);
// - the row's first cell (what the row is) opens the card's top line, and the cells marked
//   CARD_TOP (status, the expand button) sit at its right end;
// - every other cell is a "label value" fact: its `data-label` (the column's name) drawn
//   before it by `::before`, its content right-aligned; a cell without one (a Close button)
//   is its content alone; a cell spanning the row (an empty state, an expanded row's details)
//   is a block;
// - an expanded row's details row joins its card (no gap, no border between).
// Trade History (app/components/trade-history/trade-history-table.tsx) and Positions
// (app/components/positions/positions-screen.tsx) use it.
import { theme } from "../../mui/theme.ts";
import { VISUALLY_HIDDEN, sheet } from "../../styles/sheet.ts";

/** A cell on the card's top line, right of the row's first cell (a global class: one per row, kept short). */
export const CARD_TOP = "pd-card-top";

const ROW = "& > tbody > tr";
const CELL = `${ROW} > td`;

export const S = sheet("phone-cards", {
  /** On the table (MUI's Table): below 600 px its rows are cards. */
  table: {
    [theme.breakpoints.down("sm")]: {
      // Twice the class: MUI's own rule on the Table (display: table) is one class too.
      "&&": { display: "block" },
      // Visually hidden, still read.
      "& > thead": VISUALLY_HIDDEN,
      "& > tbody": { display: "block" },
      [ROW]: {
        display: "grid",
        gridTemplateColumns: "minmax(0, 1fr) auto auto",
        alignItems: "start",
        columnGap: 1,
        rowGap: 0.5,
        mb: 1.5,
        // MUI's Paper variant="outlined" (elevation none, the theme's radius and divider border).
        bgcolor: "background.paper",
        color: "text.primary",
        borderRadius: 1,
        border: 1,
        borderColor: "divider",
        p: 2,
        minWidth: 0,
      },
      [CELL]: {
        display: "grid",
        gridColumn: "1 / -1",
        gridTemplateColumns: "auto minmax(0, 1fr)",
        alignItems: "baseline",
        columnGap: 2,
        p: 0,
        border: 0,
        textAlign: "right",
        whiteSpace: "normal",
        overflowWrap: "anywhere",
        position: "static",
        bgcolor: "transparent",
        boxShadow: "none",
        minWidth: 0,
      },
      [`${CELL} > *`]: { gridColumn: "2", minWidth: 0 },
      [`${CELL}[data-label]::before`]: {
        content: "attr(data-label)",
        gridColumn: "1",
        gridRow: "1",
        textAlign: "left",
        color: "text.secondary",
        whiteSpace: "nowrap",
        overflowWrap: "normal",
      },
      // The top line: the first cell on the left, the CARD_TOP cells at the right end.
      [`${CELL}:first-of-type`]: { display: "block", gridColumn: "1", gridRow: "1", textAlign: "left", mb: 1 },
      [`${CELL}.${CARD_TOP}`]: { display: "block", gridColumn: "auto", gridRow: "1", justifySelf: "end", mb: 1 },
      // A cell spanning the row: the empty state, an expanded row's details.
      [`${CELL}[colspan]`]: { display: "block", gridColumn: "1 / -1", textAlign: "left", mb: 0, overflowX: "auto" },
      // An expanded row and its details row: one card.
      [`${ROW}.pd-open`]: { mb: 0, borderBottom: 0, borderBottomLeftRadius: 0, borderBottomRightRadius: 0 },
      [`${ROW}.pd-open + tr`]: { borderTop: 0, borderTopLeftRadius: 0, borderTopRightRadius: 0, pt: 0 },
    },
  },
});
