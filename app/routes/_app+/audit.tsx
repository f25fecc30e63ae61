// /audit: the audit trail (issue 13, decision 029; admin only, "audit.read"). Server-rendered,
// newest first, 50 a page; "Older" follows the id cursor (?before=<id>), so it works without
// JavaScript. Linked from the Users screen.
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { Link as RemixLink, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { Screen } from "#app/components/screen.tsx";
import { NO_STORE } from "#app/utils/api.server.ts";
import { requirePermission } from "#app/services/sessions.server.ts";
import type { AuditChanges } from "#app/core/types/audit.ts";
import { auditPage } from "#app/services/audit.server.ts";

export const meta: MetaFunction = () => [{ title: "Audit trail · PerpDesk" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "audit.read");
  return json(await auditPage(context.db, new URL(request.url)), { headers: NO_STORE });
}

const show = (value: unknown) =>
  value === undefined ? "—" : typeof value === "string" ? value : JSON.stringify(value);

function Changes({ changes }: { changes: AuditChanges }) {
  const keys = Object.keys(changes);
  if (keys.length === 0) return <>—</>;
  return (
    <Box component="ul" sx={{ m: 0, pl: 2 }}>
      {keys.map((key) => (
        <li key={key}>
          <code>{key}</code>: {show(changes[key].before)} → {show(changes[key].after)}
        </li>
      ))}
    </Box>
  );
}

export default function AuditRoute() {
  const { entries, nextBefore, first, limit } = useLoaderData<typeof loader>();
  return (
    <Screen
      title="Audit trail"
      actions={
        <Button component={RemixLink} to="/users" size="small">
          Users
        </Button>
      }
    >
      <Paper variant="outlined">
        <TableContainer>
          <Table size="small" data-testid="audit-table">
            <TableHead>
              <TableRow>
                <TableCell>When</TableCell>
                <TableCell>Who</TableCell>
                <TableCell>Action</TableCell>
                <TableCell>Target</TableCell>
                <TableCell>Changes</TableCell>
                <TableCell>IP</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {entries.length === 0 ? (
                <TableRow>
                  <TableCell colSpan={6}>
                    <Typography color="text.secondary">
                      No audit entries{first ? " yet" : " older than these"}.
                    </Typography>
                  </TableCell>
                </TableRow>
              ) : (
                entries.map((entry) => (
                  <TableRow key={entry.id} data-testid="audit-row">
                    <TableCell sx={{ whiteSpace: "nowrap" }}>
                      {entry.createdAt.replace("T", " ").slice(0, 19)} UTC
                    </TableCell>
                    <TableCell>{entry.actor}</TableCell>
                    <TableCell>
                      <code>{entry.action}</code>
                    </TableCell>
                    <TableCell sx={{ wordBreak: "break-all" }}>{entry.target}</TableCell>
                    <TableCell>
                      <Changes changes={entry.changes} />
                    </TableCell>
                    <TableCell>{entry.ip ?? "—"}</TableCell>
                  </TableRow>
                ))
              )}
            </TableBody>
          </Table>
        </TableContainer>
      </Paper>
      <Box sx={{ display: "flex", gap: 1, mt: 2 }}>
        {first ? null : (
          <Button component={RemixLink} to="/audit" size="small">
            Newest
          </Button>
        )}
        {nextBefore != null ? (
          <Button
            component={RemixLink}
            to={`/audit?before=${nextBefore}${limit === 50 ? "" : `&limit=${limit}`}`}
            size="small"
            data-testid="audit-older"
          >
            Older
          </Button>
        ) : null}
      </Box>
    </Screen>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
