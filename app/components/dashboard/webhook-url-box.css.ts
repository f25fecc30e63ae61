// Static styles of webhook-url-box.tsx, built by vanilla-extract at build time (app/styles/sheet.ts).
import { sheet } from "../../styles/sheet.ts";

export const S = sheet("webhook-box", {
  adornment: { display: "flex", alignItems: "center", height: "0.01em", maxHeight: "2em", whiteSpace: "nowrap", color: "action.active", ml: 1 },
  // IconButton, size medium, edge "end" (LeanIconButton is the small one): the same 36 px
  // before and after hydration, so the field does not shift.
  copy: { mr: -1.5, p: 1 },
  note: { mt: 1 },
});
