// The sidebar's status block: MUI Typography and Tooltips over plain rows with static layout
// classes (it is on every page; see ./app-shell.tsx). Each component's message is its Tooltip,
// which also makes it the row's aria-label in the server's render.
import { HydratedTooltip } from "../ui/hydrated-tooltip.tsx";
import { type ComponentStatus, STATUS_TEXT, type SystemStatusEntry, overallStatus } from "#app/core/system-status.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import Typography from "@mui/material/Typography";
import { S } from "./system-status.css.ts";

export const HEALTH_POLL_MS = 30_000;
const DETAIL = { ml: 2.25 } as const;

const Dot = ({ status }: { status: ComponentStatus }) => <span className={`${S.dot} ${S[status]}`} />;

const LABELS: Record<string, string> = {
  database: "Database",
  worker: "Worker",
  webhook: "Webhook",
  coinbase_api: "Exchange",
  system: "Trading",
};

/** The sidebar's status block: GET /api/health every 30 s (docs/spec/api.md). */
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
    <div data-testid="system-status" data-status={overall} className={S.block}>
      <div className={S.row}>
        <Dot status={overall} />
        <Typography variant="subtitle2">{text.title}</Typography>
      </div>
      <Typography variant="caption" color="text.secondary" component="p" sx={DETAIL}>
        {text.detail}
      </Typography>
      <ul className={S.list}>
        {entries.map((entry) => {
          const row = (
            <li className={S.row} data-component={entry.component}>
              <Dot status={entry.status === "online" || entry.status === "warning" ? entry.status : "error"} />
              <span className="pd-caption pd-muted">
                {LABELS[entry.component] ?? entry.component}: {entry.status}
              </span>
            </li>
          );
          // The Tooltip gives the row the message as its aria-label, on the server too.
          return (
            <HydratedTooltip key={entry.component} title={entry.message} placement="right">
              {row}
            </HydratedTooltip>
          );
        })}
      </ul>
    </div>
  );
}
