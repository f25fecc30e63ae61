// The sidebar's status block: plain elements with lean classes (it is on every page; see
// ./app-shell.tsx). Each component's message is its Tooltip once hydrated; before that it is
// the row's aria-label, as a closed Tooltip renders it.
import Tooltip from "@mui/material/Tooltip";
import { type ComponentStatus, STATUS_TEXT, type SystemStatusEntry, overallStatus } from "#app/core/system-status.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { T, cls } from "../ui/lean.tsx";
import { leanSheet } from "../ui/lean-sheet.ts";

export const HEALTH_POLL_MS = 30_000;

const S = leanSheet("status", {
  block: { p: 2, borderTop: 1, borderColor: "divider" },
  row: { display: "flex", alignItems: "center", gap: 1 },
  detail: { ml: 2.25 },
  list: { listStyle: "none", p: 0, m: 0, mt: 1, display: "flex", flexDirection: "column", gap: 0.5 },
  dot: { width: 10, height: 10, borderRadius: "50%", flexShrink: 0 },
  online: { bgcolor: "success.main" },
  warning: { bgcolor: "warning.main" },
  error: { bgcolor: "error.main" },
});

const Dot = ({ status }: { status: ComponentStatus }) => <span className={cls(S.dot, S[status])} />;

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
  const hydrated = useHydrated();
  const entries = data?.systemStatus ?? initial;
  const overall = overallStatus(entries);
  const text = STATUS_TEXT[overall];
  return (
    <div data-testid="system-status" data-status={overall} className={S.block}>
      <div className={S.row}>
        <Dot status={overall} />
        <p className={T.subtitle2}>{text.title}</p>
      </div>
      <p className={cls(T.caption, T.muted, S.detail)}>{text.detail}</p>
      <ul className={S.list}>
        {entries.map((entry) => {
          const row = (
            <li key={entry.component} className={S.row} data-component={entry.component} aria-label={hydrated ? undefined : entry.message}>
              <Dot status={entry.status === "online" || entry.status === "warning" ? entry.status : "error"} />
              <span className={cls(T.caption, T.muted)}>
                {LABELS[entry.component] ?? entry.component}: {entry.status}
              </span>
            </li>
          );
          return hydrated ? (
            <Tooltip key={entry.component} title={entry.message} placement="right">
              {row}
            </Tooltip>
          ) : (
            row
          );
        })}
      </ul>
    </div>
  );
}
