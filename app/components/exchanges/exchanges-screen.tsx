// The Exchanges screen (docs/spec/screens.md Exchanges, api.md, api.md#errors): the connections table (Exchange,
// Account Name, API, Total USD Value, Status, Enabled, Actions), the Connect Exchange dialog,
// the sandbox and enabled switches, Test, and delete with a browser confirmation.
//
// With JavaScript every action calls the JSON API (GET/POST /api/exchanges, PUT/DELETE
// /api/exchanges/{id}, POST /api/exchanges/{id}/test) and toasts; the list is polled every
// 5 minutes. Without JavaScript the same actions are plain form posts to the page's action
// (intent=add|sandbox|enabled|test|delete) answered by a redirect with a flash toast; the
// dialog becomes an inline form (/exchanges?add=1) and delete asks on a confirmation row
// (/exchanges?confirmDelete=<id>). Changes are admin-only; other users see the table.
import type { SubmissionResult } from "@conform-to/react";
import AddIcon from "@mui/icons-material/Add";
import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import Paper from "@mui/material/Paper";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { Link as RemixLink, useRevalidator } from "@remix-run/react";
import { useState } from "react";
import type { ExchangeView } from "#app/core/schemas/exchange-connection.ts";
import { errorText } from "#app/utils/api-client.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { Screen } from "../screen.tsx";
import { ContractSizesSetting, type ContractSizesView } from "./contract-sizes-setting.tsx";
import { COLUMNS, ExchangeRow } from "./exchange-row.tsx";
import { ConnectExchangeForm } from "./connect-exchange-form.tsx";

/** docs/spec/api.md/figures.md#defaults-and-limits: GET /api/exchanges every 5 minutes (stale after 4). */
export const EXCHANGES_POLL_MS = 5 * 60_000;

export interface ExchangesScreenProps {
  exchanges: ExchangeView[];
  isAdmin: boolean;
  /** No JavaScript: show the Connect Exchange form inline (?add=1). */
  addOpen: boolean;
  /** No JavaScript: the exchange whose deletion waits for a confirmation (?confirmDelete=). */
  confirmDeleteId: string | null;
  /** The page action's answer to a failed Connect Exchange post. */
  addResult?: SubmissionResult<string[]>;
  /** The simulator's "Use Coinbase contract sizes" (decision 025); absent: not shown. */
  contractSizes?: ContractSizesView;
  /** Saving a connection now turns the simulator's "Use Coinbase contract sizes" on: the form says so. */
  contractSizesSwitch?: boolean;
}

export function ExchangesScreen({
  exchanges: initial,
  isAdmin,
  addOpen,
  confirmDeleteId,
  addResult,
  contractSizes,
  contractSizesSwitch = false,
}: ExchangesScreenProps) {
  const hydrated = useHydrated();
  const query = useApiQuery<{ exchanges: ExchangeView[] }>("/api/exchanges", {
    initialData: { exchanges: initial },
    refetchIntervalMs: EXCHANGES_POLL_MS,
  });
  const exchanges = query.data?.exchanges ?? initial;
  const [dialogOpen, setDialogOpen] = useState(false);
  const revalidator = useRevalidator();
  const refresh = () => void query.refetch();
  // An added connection may have switched the simulator's setting: the page's data again.
  const added = () => {
    refresh();
    revalidator.revalidate();
  };

  // Without JavaScript the "dialog" is the same form inline; with it, a real dialog.
  const showInline = !hydrated && (addOpen || addResult !== undefined);
  const addButton = (label: string, testId: string) =>
    isAdmin ? (
      <Button
        component={RemixLink}
        to="/exchanges?add=1"
        variant="contained"
        startIcon={<AddIcon />}
        data-testid={testId}
        onClick={(event: React.MouseEvent) => {
          if (!hydrated) return;
          event.preventDefault();
          setDialogOpen(true);
        }}
      >
        {label}
      </Button>
    ) : null;

  return (
    <Screen title="Exchanges" actions={addButton("Add Exchange", "add-exchange")}>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        The exchange accounts the bot may trade with. The first enabled one is the trading account; sandbox accounts
        trade on paper at Coinbase prices.
      </Typography>
      {query.error ? (
        <Alert severity="warning" sx={{ mb: 2 }} data-testid="exchanges-error">
          {`Showing the last known list: ${errorText(query.error, "the exchanges could not be refreshed")}`}
        </Alert>
      ) : null}
      {showInline ? (
        <Paper variant="outlined" sx={{ p: 3, mb: 3 }} data-testid="connect-exchange-inline">
          <Typography variant="h2" component="h2" gutterBottom>
            Connect Exchange
          </Typography>
          <ConnectExchangeForm
            lastResult={addResult}
            onDone={added}
            onCancelHref="/exchanges"
            contractSizesSwitch={contractSizesSwitch}
          />
        </Paper>
      ) : null}
      {exchanges.length === 0 ? (
        <Paper variant="outlined" sx={{ p: 6, textAlign: "center" }} data-testid="exchanges-empty">
          <Typography variant="h3" component="p" gutterBottom>
            No exchanges connected
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            Connect a Coinbase account to trade with it. Until then every order is a paper order on the simulator.
          </Typography>
          {addButton("Add Your First Exchange", "add-first-exchange")}
        </Paper>
      ) : (
        <TableContainer component={Paper} variant="outlined">
          <Table size="small" data-testid="exchanges-table">
            <TableHead>
              <TableRow>
                {COLUMNS.map((c) => (
                  <TableCell key={c}>{c}</TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {exchanges.map((exchange) => (
                <ExchangeRow
                  key={exchange.id}
                  exchange={exchange}
                  isAdmin={isAdmin}
                  hydrated={hydrated}
                  confirmDelete={confirmDeleteId === exchange.id}
                  onChanged={refresh}
                />
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {contractSizes ? <ContractSizesSetting setting={contractSizes} isAdmin={isAdmin} hydrated={hydrated} /> : null}
      <Dialog
        open={hydrated && dialogOpen}
        onClose={() => setDialogOpen(false)}
        fullWidth
        maxWidth="sm"
        aria-labelledby="connect-exchange-title"
      >
        <DialogTitle id="connect-exchange-title">Connect Exchange</DialogTitle>
        <DialogContent>
          {dialogOpen ? (
            <ConnectExchangeForm
              onDone={() => {
                setDialogOpen(false);
                added();
              }}
              onCancel={() => setDialogOpen(false)}
              contractSizesSwitch={contractSizesSwitch}
            />
          ) : null}
        </DialogContent>
      </Dialog>
    </Screen>
  );
}
