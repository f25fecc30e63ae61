// Drift alarms (issue 11): differences between the exchange's positions and the app's that
// the reconciliation loop confirmed (GET /api/drifts, refreshed by live trade updates). Shown
// on Positions and the dashboard while any is open, each with Adopt (the app takes the
// exchange's position) and Close (adopt, then close it at market). Plain forms posted to
// /positions (intent drift-adopt / drift-close), so they work without JavaScript.
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { describeDrift } from "#app/core/reconcile/compare.ts";
import type { Drift } from "#app/core/types/drifts.ts";
import { formatDateTime } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { IntentForm } from "../forms.tsx";
import { useCan } from "../layout/permissions.tsx";
import { S } from "./drift-alarms.css.ts";

export type DriftItem = Pick<
  Drift,
  "id" | "exchange" | "symbol" | "kind" | "appSide" | "appQuantity" | "exchangeSide" | "exchangeQuantity" | "createdAt"
>;

export function DriftAlarms({ initial }: { initial: DriftItem[] | null }) {
  const canResolve = useCan("drifts.resolve");
  const { data } = useApiQuery<DriftItem[]>("/api/drifts", { initialData: initial ?? undefined });
  const drifts = data ?? initial ?? [];
  if (drifts.length === 0) return null;
  return (
    <section className={S.box} role="alert" data-testid="drift-alarms" aria-label="Drift alarms">
      <Typography variant="h3" component="h2" className="pd-c-error">
        The exchange and the app disagree
      </Typography>
      <Typography variant="body2" color="text.secondary">
        Reconciliation found{" "}
        {drifts.length === 1 ? "a position that differs" : `${drifts.length} positions that differ`} from the exchange.
        Adopt takes the exchange's position into the app (booked at its entry or mark price, no order sent); Close
        adopts it and then closes it at market.
      </Typography>
      <ul className={S.list}>
        {drifts.map((d) => (
          <li key={d.id} className={S.row} data-testid="drift" data-symbol={d.symbol} data-kind={d.kind}>
            <span className={`pd-body2 ${S.what}`}>
              {describeDrift(d)}{" "}
              <span className="pd-caption pd-muted">
                · {d.exchange} · since {formatDateTime(d.createdAt)}
              </span>
            </span>
            {canResolve ? (
              <>
                <IntentForm action="/positions" intent="drift-adopt" values={{ id: d.id }}>
                  <Button type="submit" size="small" variant="outlined" data-testid={`drift-adopt-${d.symbol}`}>
                    Adopt
                  </Button>
                </IntentForm>
                <IntentForm action="/positions" intent="drift-close" values={{ id: d.id }}>
                  <Button
                    type="submit"
                    size="small"
                    variant="outlined"
                    color="error"
                    data-testid={`drift-close-${d.symbol}`}
                  >
                    Close
                  </Button>
                </IntentForm>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
