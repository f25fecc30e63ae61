// Open orders and Flatten all (issue 11). The resting orders (GET /api/orders, refreshed by
// live trade updates) with Cancel each and Cancel all, and the Flatten all button. Every
// control is a plain form posted to /positions (intents cancel-order, cancel-all, flatten),
// so it works without JavaScript; with it, Remix submits in place and the toast follows. The
// card is on Positions, Manual Trading and (while an order rests) the dashboard; its forms
// return to the page they were posted from (`back`, a same-origin path).
import type { Trade } from "#app/core/types/trades.ts";
import Button from "@mui/material/Button";
import Paper from "@mui/material/Paper";
import Typography from "@mui/material/Typography";
import { Form, useNavigation } from "@remix-run/react";
import { formatDateTime, formatPrice, formatQuantity } from "#app/core/format.ts";
import { useApiQuery } from "#app/utils/use-api-query.tsx";
import { IntentForm } from "../forms.tsx";
import { useCan } from "../layout/permissions.tsx";
import { S } from "./open-orders.css.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { FLATTEN_CONFIRMED, confirmFlatten } from "./flatten-confirm.tsx";

const CARD = { p: 2, mt: 3 } as const;

export type OpenOrder = Pick<
  Trade,
  "id" | "symbol" | "side" | "orderType" | "quantity" | "price" | "source" | "createdAt"
>;

/**
 * "Flatten all": cancels every resting order and closes every position at market. It asks
 * first (decision 041): with JavaScript the confirm dialog, then the post carries confirm=1;
 * without, the action answers a confirmation panel (flatten-confirm.tsx).
 */
export function FlattenButton() {
  const canClose = useCan("positions.close");
  const navigation = useNavigation();
  const hydrated = useHydrated();
  if (!canClose) return null;
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "flatten";
  return (
    <Form method="post" action="/positions" onSubmit={(event) => confirmFlatten("flatten", event)}>
      <input type="hidden" name="intent" value="flatten" />
      {hydrated ? <input type="hidden" name={FLATTEN_CONFIRMED.name} value={FLATTEN_CONFIRMED.value} /> : null}
      <Button type="submit" variant="outlined" color="error" disabled={busy} data-testid="flatten-all">
        {busy ? "Flattening..." : "Flatten all"}
      </Button>
    </Form>
  );
}

/**
 * `back`: the page the forms return to (Positions, the dashboard, Manual Trading);
 * `hideWhenEmpty`: the dashboard shows the card only while an order rests.
 */
export function OpenOrders({
  initial,
  back = "/positions",
  hideWhenEmpty = false,
}: {
  initial: OpenOrder[] | null;
  back?: string;
  hideWhenEmpty?: boolean;
}) {
  const canCancel = useCan("orders.cancel");
  const { data } = useApiQuery<OpenOrder[]>("/api/orders", { initialData: initial ?? undefined });
  const orders = data ?? initial ?? [];
  if (hideWhenEmpty && orders.length === 0) return null;
  return (
    <Paper variant="outlined" component="section" sx={CARD} data-testid="open-orders" aria-label="Open orders">
      <div className={S.head}>
        <Typography variant="h3" component="h2">
          Open orders
        </Typography>
        <Typography variant="body2" color="text.secondary" component="span">
          {orders.length === 0 ? "" : `${orders.length} resting`}
        </Typography>
        <div className={S.spacer} />
        {canCancel && orders.length > 1 ? (
          <IntentForm action="/positions" intent="cancel-all" values={{ back }}>
            <Button type="submit" size="small" variant="outlined" color="warning" data-testid="cancel-all-orders">
              Cancel all
            </Button>
          </IntentForm>
        ) : null}
      </div>
      {orders.length === 0 ? (
        <Typography variant="body2" color="text.secondary" data-testid="no-open-orders">
          No resting orders. Limit orders wait here until they fill or you cancel them.
        </Typography>
      ) : (
        <ul className={S.list}>
          {orders.map((o) => (
            <li key={o.id} className={S.row} data-testid="open-order" data-symbol={o.symbol}>
              <span className={`pd-body2 ${S.what}`}>
                <b className={o.side === "buy" ? "pd-c-primary" : "pd-c-error"}>{o.side.toUpperCase()}</b>{" "}
                {formatQuantity(o.quantity)} {o.symbol} {o.orderType} @ {formatPrice(o.price)}
              </span>
              <span className="pd-caption pd-muted">
                {o.source} · {formatDateTime(o.createdAt)}
              </span>
              {canCancel ? (
                <IntentForm action="/positions" intent="cancel-order" values={{ back, id: o.id }}>
                  <Button
                    type="submit"
                    size="small"
                    variant="outlined"
                    color="error"
                    data-testid={`cancel-order-${o.id}`}
                  >
                    Cancel
                  </Button>
                </IntentForm>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </Paper>
  );
}
