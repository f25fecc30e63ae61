// Static styles of panel-card.tsx, built by vanilla-extract at build time (app/styles/sheet.ts):
// MUI CardHeader's rules (root, content, action) and its title and subheader typography.
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("panel", {
  header: { display: "flex", alignItems: "center", p: 2 },
  content: { flex: "1 1 auto" },
  action: { flex: "0 0 auto", alignSelf: "flex-start", mt: "-4px", mr: "-8px", mb: "-4px" },
  title: { m: 0, typography: "h3", display: "block" },
  subheader: { m: 0, typography: "body1", color: "text.secondary", display: "block" },
});
