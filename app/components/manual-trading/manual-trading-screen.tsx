// The Manual Trading screen (docs/spec/screens.md Manual Trading, api.md#validation, api.md, api.md#errors, figures.md#defaults-and-limits): the Place Order
// card (the dashboard's ManualTradeForm, posting the place-order intent to this route's
// action, with or without JavaScript) fed by balances polled every 30 s, and the info notes.
// Stop loss and take profit: the position a manual order opens carries the protection
// configured under Trading Rules → Manual Position Protection (shown here from
// GET /api/trading-config, every 30 s); the form has no per-order fields.
import { type OpenOrder, OpenOrders } from "../positions/open-orders.tsx";
import Box from "@mui/material/Box";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import CardHeader from "@mui/material/CardHeader";
import Chip from "@mui/material/Chip";
import Link from "@mui/material/Link";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableRow from "@mui/material/TableRow";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import { Link as RemixLink } from "@remix-run/react";
import type { ReactNode } from "react";
import type { TradingConfig } from "#app/core/schemas/trading-config.ts";
import type { SystemStatusEntry } from "#app/core/system-status.ts";
import { formatBalance } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { type BalanceInfo, ManualTradeForm } from "../dashboard/manual-trade-form.tsx";
import { ProtectionTable } from "./protection-table.tsx";
import { Screen } from "../screen.tsx";
import { manualProtectionLines } from "./manual-protection.ts";

/** docs/spec/api.md and figures.md#defaults-and-limits: balances every 30 s (20 s stale: the server-rendered ones are fresh). */
export const BALANCE_POLL_MS = 30_000;
/** docs/spec/figures.md#defaults-and-limits: manual trading's health poll. */
export const HEALTH_POLL_MS = 60_000;
export const TRADING_CONFIG_POLL_MS = 30_000;

export interface ManualTradingData {
  balance: BalanceInfo | null;
  config: TradingConfig;
  systemStatus: SystemStatusEntry[];
  isAdmin: boolean;
  /** Resting orders (issue 11), with Cancel and Cancel all. */
  orders?: OpenOrder[] | null;
}

function InfoCard({ title, children, testId }: { title: string; children: ReactNode; testId: string }) {
  return (
    <Card variant="outlined" data-testid={testId}>
      <CardHeader title={title} slotProps={{ title: { variant: "h3", component: "h2" } }} />
      <CardContent sx={{ pt: 0 }}>{children}</CardContent>
    </Card>
  );
}

export function ManualTradingScreen({ data }: { data: ManualTradingData }) {
  const balance = useApiQuery<BalanceInfo>("/api/balance", {
    initialData: data.balance ?? undefined,
    refetchIntervalMs: BALANCE_POLL_MS,
  });
  const health = useApiQuery<{ systemStatus: SystemStatusEntry[] }>("/api/health", {
    initialData: { systemStatus: data.systemStatus },
    refetchIntervalMs: HEALTH_POLL_MS,
  });
  const config = useApiQuery<{ config: TradingConfig }>("/api/trading-config", {
    initialData: { config: data.config },
    refetchIntervalMs: TRADING_CONFIG_POLL_MS,
  });
  const exchange = (health.data?.systemStatus ?? data.systemStatus).find((s) => s.component === "coinbase_api");
  const connected = exchange?.status === "online";
  const protection = manualProtectionLines(config.data?.config ?? data.config);
  const balances = balance.data?.balances ?? [];

  return (
    <Screen
      title="Manual Trading"
      badge={
        <Tooltip title={exchange?.message ?? "No status reported for the exchange"}>
          <Chip
            size="small"
            data-testid="exchange-status"
            color={connected ? "success" : exchange?.status === "warning" ? "warning" : "error"}
            variant="outlined"
            label={connected ? "Exchange connected" : "Exchange disconnected"}
          />
        </Tooltip>
      }
    >
      <Box
        sx={{
          display: "grid",
          gap: 2,
          gridTemplateColumns: { xs: "minmax(0, 1fr)", lg: "3fr 2fr" },
          alignItems: "start",
        }}
      >
        <Box sx={{ display: "grid", gap: 2, minWidth: 0 }}>
          <ManualTradeForm balance={balance.data ?? null} title="Place Order" />
          <OpenOrders initial={data.orders ?? null} back="/manual-trading" />
          <InfoCard title="Balances" testId="manual-balances">
            {balances.length === 0 ? (
              <Typography color="text.secondary">{balance.error ? "Balances unavailable" : "No balances"}</Typography>
            ) : (
              <Table size="small" aria-label="Balances">
                <TableBody>
                  {balances.map((b) => (
                    <TableRow key={b.currency}>
                      <TableCell sx={{ fontWeight: 600 }}>{b.currency}</TableCell>
                      <TableCell align="right" sx={{ fontVariantNumeric: "tabular-nums" }}>
                        {`${formatBalance(b.available)} available`}
                      </TableCell>
                      <TableCell align="right" sx={{ fontVariantNumeric: "tabular-nums", color: "text.secondary" }}>
                        {`${formatBalance(b.hold)} on hold`}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            )}
            {balance.data?.label ? (
              <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
                {`${balance.data.label} · refreshed every 30 s`}
              </Typography>
            ) : null}
          </InfoCard>
        </Box>
        <Box sx={{ display: "grid", gap: 2, minWidth: 0 }}>
          <InfoCard title="Order Information" testId="manual-info">
            <Box component="ul" sx={{ m: 0, pl: 2.5, "& li": { mb: 1 } }}>
              <li>
                <strong>Market orders</strong> execute immediately at the best available price.
              </li>
              <li>
                <strong>Limit orders</strong> fill at the limit price or better; until then they rest on the book.
              </li>
              <li>
                <strong>Amount types:</strong> quantity (contracts of the base asset), USD (a notional converted at the
                current price) or percentage (of the available USDC balance, times the leverage).
              </li>
              <li>
                <strong>Futures:</strong> leverage from 1x to 10x; margin type Cross or Isolated.
              </li>
              <li>
                <strong>Stop loss and take profit</strong> are supported: the position an order opens gets the
                protection set in{" "}
                {data.isAdmin ? (
                  <Link component={RemixLink} to="/trading-rules">
                    Trading Rules
                  </Link>
                ) : (
                  "Trading Rules"
                )}{" "}
                for manual positions (below).
              </li>
            </Box>
          </InfoCard>
          <InfoCard title="Protection for Manual Positions" testId="manual-protection">
            <ProtectionTable lines={protection} label="Protection for manual positions" testId="protection-line" />
          </InfoCard>
        </Box>
      </Box>
    </Screen>
  );
}
