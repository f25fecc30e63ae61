import Box from "@mui/material/Box";
import Stack from "@mui/material/Stack";
import Tooltip from "@mui/material/Tooltip";
import Typography from "@mui/material/Typography";
import { type ComponentStatus, STATUS_TEXT, type SystemStatusEntry, overallStatus } from "#app/core/system-status.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";

export const HEALTH_POLL_MS = 30_000;

const COLOR: Record<ComponentStatus, string> = { online: "success.main", warning: "warning.main", error: "error.main" };

const Dot = ({ status }: { status: ComponentStatus }) => (
  <Box component="span" sx={{ width: 10, height: 10, borderRadius: "50%", bgcolor: COLOR[status], flexShrink: 0 }} />
);

const LABELS: Record<string, string> = {
  database: "Database",
  worker: "Worker",
  webhook: "Webhook",
  coinbase_api: "Exchange",
  system: "Trading",
};

/** The sidebar's status block: GET /api/health every 30 s (SPEC.md §7). */
export function SystemStatusBlock({ initial }: { initial: SystemStatusEntry[] }) {
  // Live system_status messages refresh it too (through the query registry).
  const { data } = useApiQuery<{ systemStatus: SystemStatusEntry[] }>("/api/health", {
    initialData: { systemStatus: initial },
    refetchIntervalMs: HEALTH_POLL_MS,
  });
  const entries = data?.systemStatus ?? initial;
  const overall = overallStatus(entries);
  const text = STATUS_TEXT[overall];
  return (
    <Box data-testid="system-status" data-status={overall} sx={{ p: 2, borderTop: 1, borderColor: "divider" }}>
      <Stack sx={{ alignItems: "center" }} direction="row" spacing={1}>
        <Dot status={overall} />
        <Typography variant="subtitle2">{text.title}</Typography>
      </Stack>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ ml: 2.25 }}>
        {text.detail}
      </Typography>
      <Stack component="ul" spacing={0.5} sx={{ listStyle: "none", p: 0, m: 0, mt: 1 }}>
        {entries.map((entry) => (
          <Tooltip key={entry.component} title={entry.message} placement="right">
            <Stack sx={{ alignItems: "center" }} component="li" direction="row" spacing={1} data-component={entry.component}>
              <Dot status={entry.status === "online" || entry.status === "warning" ? entry.status : "error"} />
              <Typography variant="caption" color="text.secondary">
                {LABELS[entry.component] ?? entry.component}: {entry.status}
              </Typography>
            </Stack>
          </Tooltip>
        ))}
      </Stack>
    </Box>
  );
}
