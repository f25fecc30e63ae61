// The Signals panel (SPEC.md §2 Dashboard): a 'Live' badge and the latest signals.
import ArrowDownwardIcon from "@mui/icons-material/ArrowDownward";
import ArrowUpwardIcon from "@mui/icons-material/ArrowUpward";
import Box from "@mui/material/Box";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import CardHeader from "@mui/material/CardHeader";
import Chip from "@mui/material/Chip";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import type { Signal } from "#db/queries/signals.ts";
import { useLive } from "#app/live/use-live-updates.tsx";
import { formatPrice, signalAge } from "#app/utils/format.ts";
import { useNow } from "#app/utils/use-hydrated.ts";

export const SIGNALS_POLL_MS = 60_000;

function StatusBadge({ signal }: { signal: Signal }) {
  if (signal.processed) return <Chip size="small" color="success" label="EXECUTED" />;
  if (signal.status === "queued") return <Chip size="small" color="warning" label="PENDING" />;
  // Stored but not executed (emergency stop, auto trading off, refused): say so.
  return (
    <Tooltip title={signal.statusReason ?? ""}>
      <Chip size="small" color={signal.status === "failed" ? "error" : "default"} label={signal.status.toUpperCase()} />
    </Tooltip>
  );
}

export function SignalsPanel({ signals }: { signals: Signal[] }) {
  const now = useNow(30_000);
  const { connected } = useLive();
  return (
    <Card variant="outlined" data-testid="signals-panel">
      <CardHeader
        title="Signals"
        slotProps={{ title: { variant: "h3", component: "h2" } }}
        action={<Chip size="small" label="Live" color={connected ? "success" : "default"} variant={connected ? "filled" : "outlined"} data-testid="signals-live-badge" />}
      />
      <CardContent sx={{ pt: 0, maxHeight: "24rem", overflowY: "auto" }}>
        {signals.length === 0 ? (
          <Box sx={{ py: 4, textAlign: "center" }}>
            <Typography>No signals received yet</Typography>
            <Typography variant="body2" color="text.secondary">
              Waiting for TradingView webhooks...
            </Typography>
          </Box>
        ) : (
          signals.map((signal) => {
            const buy = signal.action === "buy";
            return (
              <Box key={signal.id} data-testid="signal-row" sx={{ display: "flex", gap: 1.5, py: 1.25, borderBottom: 1, borderColor: "divider" }}>
                <Box sx={{ color: buy ? "primary.main" : "error.main", pt: 0.25 }}>{buy ? <ArrowUpwardIcon /> : <ArrowDownwardIcon />}</Box>
                <Box sx={{ flex: 1, minWidth: 0 }}>
                  <Box sx={{ display: "flex", alignItems: "center", gap: 1, flexWrap: "wrap" }}>
                    <Typography sx={{ fontWeight: 600 }}>{signal.action.toUpperCase()} Signal</Typography>
                    <StatusBadge signal={signal} />
                    <Typography variant="caption" color="text.secondary" sx={{ ml: "auto" }}>
                      {signalAge(signal.createdAt, now)}
                    </Typography>
                  </Box>
                  <Typography variant="body2" color="text.secondary">
                    {signal.symbol} · {signal.orderType}
                    {signal.price ? ` · ${formatPrice(signal.price)}` : ""}
                  </Typography>
                  <Typography variant="caption" sx={{ fontFamily: "monospace", color: "text.secondary" }}>
                    {JSON.stringify({ action: signal.action, symbol: signal.symbol, price: signal.price ?? undefined, qty: signal.quantity })}
                  </Typography>
                </Box>
              </Box>
            );
          })
        )}
      </CardContent>
    </Card>
  );
}
