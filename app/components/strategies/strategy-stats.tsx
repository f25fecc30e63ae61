// Performance statistics per strategy beside the totals (docs/spec/api.md#shapes fields, all time), from
// GET /api/strategies/stats's figures; scrolls sideways on a phone.
import Box from "@mui/material/Box";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";

interface Figures {
  totalTrades: number;
  totalPnl: string;
  pnlPercent: string;
  roi: string;
  percentProfitable: string;
  profitFactor: string | null;
  totalVolume: string;
  avgTimeInTrade: string;
}

const cell = {
  padding: "6px 10px",
  textAlign: "right" as const,
  whiteSpace: "nowrap" as const,
  borderBottom: "1px solid rgba(128,128,128,0.25)",
};

export function StrategyStatsTable({
  stats,
}: {
  stats: { totals: { allTime: Figures }; strategies: { id: string; name: string; stats: { allTime: Figures } }[] };
}) {
  const rows = [
    ...stats.strategies.map((s) => ({ key: s.id, name: s.name, f: s.stats.allTime })),
    { key: "totals", name: "All (totals, with manual and funding)", f: stats.totals.allTime },
  ];
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 3, minWidth: 0 }}>
      <Typography variant="h3" component="h2" gutterBottom>
        Performance by strategy (all time)
      </Typography>
      <Box sx={{ overflowX: "auto" }}>
        <table style={{ borderCollapse: "collapse", width: "100%", fontSize: 14 }} data-testid="strategy-stats">
          <thead>
            <tr>
              <th style={{ ...cell, textAlign: "left" }}>Strategy</th>
              <th style={cell}>Trades</th>
              <th style={cell}>Total P&amp;L</th>
              <th style={cell}>P&amp;L %</th>
              <th style={cell}>ROI %</th>
              <th style={cell}>Profitable %</th>
              <th style={cell}>Profit factor</th>
              <th style={cell}>Volume</th>
              <th style={cell}>Avg time in trade</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ key, name, f }) => (
              <tr
                key={key}
                data-testid={`strategy-stats-${key}`}
                style={key === "totals" ? { fontWeight: 600 } : undefined}
              >
                <td style={{ ...cell, textAlign: "left" }}>{name}</td>
                <td style={cell}>{f.totalTrades}</td>
                <td style={cell}>{f.totalPnl}</td>
                <td style={cell}>{f.pnlPercent}</td>
                <td style={cell}>{f.roi}</td>
                <td style={{ ...cell, color: Number(f.percentProfitable) >= 50 ? "#2e7d32" : undefined }}>
                  {f.percentProfitable}
                </td>
                <td style={cell}>{f.profitFactor === null ? "N/A" : Number(f.profitFactor).toFixed(1)}</td>
                <td style={cell}>{f.totalVolume}</td>
                <td style={cell}>{f.avgTimeInTrade}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Box>
    </Paper>
  );
}
