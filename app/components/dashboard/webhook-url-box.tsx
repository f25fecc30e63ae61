// Admin only (SPEC.md §6): the webhook URL with a copy button, and the port in text.
import IconButton from "@mui/material/IconButton";
import Tooltip from "@mui/material/Tooltip";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useCopy } from "../use-copy.ts";
import { CARD, LeanCard, LeanIcon, LeanIconButton, T, cls } from "../ui/lean.tsx";
import { LeanTextField } from "../ui/lean-field.tsx";
import { leanSheet } from "../ui/lean-sheet.ts";

const S = leanSheet("webhook-box", {
  adornment: { display: "flex", alignItems: "center", height: "0.01em", maxHeight: "2em", whiteSpace: "nowrap", color: "action.active", ml: 1 },
  // IconButton, size medium, edge "end" (LeanIconButton is the small one): the same 36 px
  // before and after hydration, so the field does not shift.
  copy: { mr: -1.5, p: 1 },
  note: { mt: 1 },
});
// The Material ContentCopy icon's path.
const COPY = "M16 1H4c-1.1 0-2 .9-2 2v14h2V3h12zm3 4H8c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h11c1.1 0 2-.9 2-2V7c0-1.1-.9-2-2-2m0 16H8V7h11z";

export function WebhookUrlBox({ url, port }: { url: string; port: number }) {
  const copy = useCopy();
  const hydrated = useHydrated();
  // The copy button only works with JavaScript: a plain button until hydrated, then MUI's
  // IconButton with its Tooltip.
  const button = hydrated ? (
    <Tooltip title="Copy webhook URL">
      <IconButton aria-label="Copy webhook URL" onClick={() => copy(url, "Webhook URL")} edge="end">
        <LeanIcon d={COPY} />
      </IconButton>
    </Tooltip>
  ) : (
    <LeanIconButton className={S.copy} aria-label="Copy webhook URL">
      <LeanIcon d={COPY} />
    </LeanIconButton>
  );
  return (
    <LeanCard data-testid="webhook-url-box" title="Webhook Endpoint" contentClassName={CARD.flush}>
      <LeanTextField value={url} fullWidth label="TradingView webhook URL" readOnly data-testid="webhook-url" endAdornment={<div className={S.adornment}>{button}</div>} />
      <p className={cls(T.caption, T.muted, S.note)}>
        Webhook port: {port}. TradingView only delivers to ports 80 and 443: put a reverse proxy or a port mapping in front.
      </p>
    </LeanCard>
  );
}
