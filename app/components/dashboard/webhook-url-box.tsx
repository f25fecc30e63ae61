// Admin only (docs/spec/roles.md): the webhook URL with a copy button, and the port in text.
import Tooltip from "@mui/material/Tooltip";
import { useCopy } from "../use-copy.ts";
import { CARD, LeanCard, LeanIcon, LeanIconButton, T, cls } from "../ui/lean.tsx";
import { LeanTextField } from "../ui/lean-field.tsx";
import { S } from "./webhook-url-box.css.ts";

// The Material ContentCopy icon's path.
const COPY = "M16 1H4c-1.1 0-2 .9-2 2v14h2V3h12zm3 4H8c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h11c1.1 0 2-.9 2-2V7c0-1.1-.9-2-2-2m0 16H8V7h11z";

export function WebhookUrlBox({ url, port }: { url: string; port: number }) {
  const copy = useCopy();
  // One plain, statically styled button; it copies once the page is hydrated (the field is
  // selectable without JavaScript).
  const button = (
    <Tooltip title="Copy webhook URL">
      <LeanIconButton className={S.copy} aria-label="Copy webhook URL" onClick={() => copy(url, "Webhook URL")}>
        <LeanIcon d={COPY} />
      </LeanIconButton>
    </Tooltip>
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
