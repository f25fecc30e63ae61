// Static styles of phone-cards.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("phone-cards", {
  /** The list: shown below 600 px (MUI's sm), where the screen hides its table. */
  cards: {
    display: { xs: "grid", sm: "none" },
    gridTemplateColumns: "minmax(0, 1fr)",
    gap: 1.5,
    listStyle: "none",
    m: 0,
    p: 0,
  },
  /** A wide child (an expanded trade's chart or related trades) scrolls inside its card, not the page. */
  card: {
    // MUI's Paper variant="outlined" (elevation none, the theme's radius and divider border).
    bgcolor: "background.paper",
    color: "text.primary",
    transition: "box-shadow 300ms cubic-bezier(0.4, 0, 0.2, 1) 0ms",
    borderRadius: 1,
    border: 1,
    borderColor: "divider",
    backgroundImage: "none",
    p: 2,
    minWidth: 0,
    overflowX: "auto",
  },
  head: { display: "flex", alignItems: "center", gap: 1, flexWrap: "wrap", mb: 1 },
  spacer: { flex: 1 },
  facts: {
    display: "grid",
    gridTemplateColumns: "auto 1fr",
    columnGap: 2,
    rowGap: 0.5,
    m: 0,
    mb: 1.5,
    "& dt": { color: "text.secondary" },
    "& dd": { m: 0, textAlign: "right", minWidth: 0, overflowWrap: "anywhere" },
  },
});
