// Static styles of trade-history-screen.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("th", {
  /** Screen: Stack direction row, spacing 2 (flex gap), centred, wrapping, mb 3. */
  head: { display: "flex", flexDirection: "row", alignItems: "center", flexWrap: "wrap", gap: 2, mb: 3 },
  grow: { flex: 1 },
  cards: { display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr", lg: "repeat(4, 1fr)" }, mb: 2 },
  filters: { display: "flex", gap: 1.5, alignItems: "center", flexWrap: "wrap", mb: 2 },
  footer: { display: "flex", flexDirection: "row", mt: 1.5 },
});
