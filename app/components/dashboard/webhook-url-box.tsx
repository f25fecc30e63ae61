// Admin only (docs/spec/roles.md): the webhook URL with a copy button, and the port in text.
import ContentCopy from "@mui/icons-material/ContentCopy";
import IconButton from "@mui/material/IconButton";
import InputAdornment from "@mui/material/InputAdornment";
import TextField from "@mui/material/TextField";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import { useCopy } from "../use-copy.ts";
import { PanelCard } from "../ui/panel-card.tsx";

export function WebhookUrlBox({ url, port }: { url: string; port: number }) {
  const copy = useCopy();
  // The button copies once the page is hydrated (the field is selectable without JavaScript).
  const end = (
    <InputAdornment position="end">
      <Tooltip title="Copy webhook URL">
        <IconButton edge="end" aria-label="Copy webhook URL" onClick={() => copy(url, "Webhook URL")}>
          <ContentCopy fontSize="small" />
        </IconButton>
      </Tooltip>
    </InputAdornment>
  );
  return (
    <PanelCard data-testid="webhook-url-box" title="Webhook Endpoint" flush>
      <TextField
        value={url}
        fullWidth
        size="small"
        label="TradingView webhook URL"
        slotProps={{
          inputLabel: { shrink: true },
          input: { readOnly: true, endAdornment: end },
          htmlInput: { "data-testid": "webhook-url" },
        }}
      />
      <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
        Webhook port: {port}. TradingView only delivers to ports 80 and 443: put a reverse proxy or a port mapping in
        front.
      </Typography>
    </PanelCard>
  );
}
