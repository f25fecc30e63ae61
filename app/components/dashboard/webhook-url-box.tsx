// Admin only (SPEC.md §6): the webhook URL with a copy button, and the port in text.
import ContentCopyIcon from "@mui/icons-material/ContentCopy";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import CardHeader from "@mui/material/CardHeader";
import IconButton from "@mui/material/IconButton";
import InputAdornment from "@mui/material/InputAdornment";
import TextField from "@mui/material/TextField";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import { useToast } from "../toaster.tsx";

export function useCopy() {
  const toast = useToast();
  return async (text: string, what = "Copied to clipboard") => {
    try {
      await navigator.clipboard.writeText(text);
      toast({ title: "Copied", description: what });
    } catch {
      toast({ title: "Copy failed", description: "Select the text and copy it by hand", variant: "destructive" });
    }
  };
}

export function WebhookUrlBox({ url, port }: { url: string; port: number }) {
  const copy = useCopy();
  return (
    <Card variant="outlined" data-testid="webhook-url-box">
      <CardHeader title="Webhook Endpoint" slotProps={{ title: { variant: "h3", component: "h2" } }} />
      <CardContent sx={{ pt: 0 }}>
        <TextField
          value={url}
          fullWidth
          size="small"
          label="TradingView webhook URL"
          slotProps={{
            htmlInput: { readOnly: true, "data-testid": "webhook-url" },
            input: {
              endAdornment: (
                <InputAdornment position="end">
                  <Tooltip title="Copy webhook URL">
                    <IconButton aria-label="Copy webhook URL" onClick={() => copy(url, "Webhook URL copied")} edge="end">
                      <ContentCopyIcon fontSize="small" />
                    </IconButton>
                  </Tooltip>
                </InputAdornment>
              ),
            },
          }}
        />
        <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
          Webhook port: {port}. TradingView only delivers to ports 80 and 443: put a reverse proxy or a port mapping in front.
        </Typography>
      </CardContent>
    </Card>
  );
}
