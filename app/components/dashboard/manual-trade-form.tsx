// The manual trading form (docs/spec/screens.md, api.md#validation, figures.md#defaults-and-limits): one Zod schema with the server; native
// selects so it works without JavaScript; futures fields only for -PERP symbols.
import { marginBalance } from "#app/core/exchange/types.ts";
import { getFormProps } from "@conform-to/react";
import Button from "@mui/material/Button";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import type { SubmissionResult } from "@conform-to/react";
import { useActionData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { DEFAULT_SYMBOL, listSymbols, isFuturesSymbol } from "#app/core/products.ts";
import { LEVERAGE_OPTIONS, ManualOrderSchema } from "#app/core/schemas/manual-order.ts";
import type { Toast } from "#app/core/schemas/toast.ts";
import { formatBalance } from "#app/core/format.ts";
import { useHydrated } from "#app/utils/use-hydrated.ts";
import { useInvalidate } from "#app/utils/use-api-query.tsx";
import { JsMarker, useIntentFetcher } from "./dashboard-header.tsx";
import { FormError, NativeSelect, useZodForm } from "../forms.tsx";
import { watchTrade } from "#app/live/use-live-updates.tsx";
import { useCan, useRole } from "../layout/permissions.tsx";
import { PanelCard } from "../ui/panel-card.tsx";
import { S } from "./manual-trade-form.css.ts";

// MUI's small outlined fields, native selects (the form works without JavaScript).
const SHRINK = { inputLabel: { shrink: true } } as const;

export interface BalanceInfo {
  label: string;
  balances: { currency: string; available: string; hold: string }[];
}

/** The order form, or for a role that may not order (viewer) a note saying so. */
export function ManualTradeForm(props: { balance: BalanceInfo | null; title?: string }) {
  const canOrder = useCan("orders.place");
  const role = useRole();
  if (!canOrder) {
    return (
      <PanelCard data-testid="manual-trade-form" title={props.title ?? "Manual Trading"}>
        <Typography variant="body2" color="text.secondary" data-testid="orders-not-allowed">
          {`Your role (${role ?? "viewer"}) can watch the account but not place orders. An admin can give you the trader role.`}
        </Typography>
      </PanelCard>
    );
  }
  return <OrderForm {...props} />;
}

function OrderForm({ balance, title = "Manual Trading" }: { balance: BalanceInfo | null; title?: string }) {
  const hydrated = useHydrated();
  const invalidate = useInvalidate();
  const fetcher = useIntentFetcher("manual-order", () =>
    invalidate("/api/positions", "/api/dashboard/stats", "/api/logs", "/api/trades", "/api/balance"),
  );
  // With JavaScript the fetcher has the answer; without, the page's own action data does.
  const actionData = useActionData<{ result?: SubmissionResult<string[]> }>();
  const result = (fetcher.data as { result?: SubmissionResult<string[]> } | undefined)?.result ?? actionData?.result;
  const [symbol, setSymbol] = useState(DEFAULT_SYMBOL);
  const [orderType, setOrderType] = useState("market");
  const [amountType, setAmountType] = useState("quantity");
  const futures = isFuturesSymbol(symbol);
  const busy = fetcher.state !== "idle";
  // Still queued or resting when answered: its fill or late failure comes as a live toast.
  const answered = fetcher.data as { tradeId?: string; tradeStatus?: string } | undefined;
  useEffect(() => {
    if (answered?.tradeId && answered.tradeStatus === "pending") watchTrade(answered.tradeId);
  }, [answered]);

  const [form, fields] = useZodForm({
    id: "manual-order",
    schema: ManualOrderSchema,
    lastResult: result,
    // What a reset after a successful order returns to (the selects would go blank otherwise).
    defaultValue: { leverage: "1", marginType: "cross" },
  });

  const margin = balance ? marginBalance(balance.balances) : undefined;
  const priceDisabled = hydrated && orderType === "market";
  const fieldError = (name: keyof typeof fields) => fields[name].errors?.[0];
  /** A select the form follows as it changes (the price and amount fields depend on it). */
  const choice = (
    name: "symbol" | "orderType" | "amountType",
    label: string,
    [value, onChange]: [string, (value: string) => void],
    options: [value: string, text: string][],
  ) => (
    <NativeSelect
      size="small"
      margin="none"
      name={name}
      label={label}
      value={value}
      onChange={onChange}
      error={fieldError(name)}
    >
      {options.map(([option, text]) => (
        <option key={option} value={option}>
          {text}
        </option>
      ))}
    </NativeSelect>
  );

  return (
    <PanelCard
      data-testid="manual-trade-form"
      title={title}
      subheader={
        balance
          ? `${balance.label} · ${formatBalance(margin!.available)} ${margin!.currency} available`
          : "Balance unavailable"
      }
      flush
    >
      <FormError errors={form.errors} />
      <fetcher.Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="place-order" />
        <JsMarker />
        <div className={S.grid}>
          {choice(
            "symbol",
            "Trading pair",
            [symbol, setSymbol],
            listSymbols().map((s) => [s, s]),
          )}
          {choice(
            "orderType",
            "Order type",
            [orderType, setOrderType],
            [
              ["market", "Market"],
              ["limit", "Limit"],
            ],
          )}
          {choice(
            "amountType",
            "Amount type",
            [amountType, setAmountType],
            [
              ["quantity", "Quantity"],
              ["usd", "USD"],
              ["percentage", "Percentage"],
            ],
          )}
          <TextField
            key={fields.quantity.key}
            size="small"
            name="quantity"
            label={
              amountType === "usd" ? "Amount (USD)" : amountType === "percentage" ? "Amount (% of balance)" : "Quantity"
            }
            defaultValue=""
            error={!!fieldError("quantity")}
            helperText={fieldError("quantity")}
            slotProps={{
              ...SHRINK,
              htmlInput: {
                inputMode: "decimal",
                step: amountType === "quantity" ? "0.00001" : amountType === "percentage" ? "1" : "0.01",
              },
            }}
          />
          <TextField
            key={`${fields.price.key}-${priceDisabled}`}
            size="small"
            name="price"
            label="Price"
            disabled={priceDisabled}
            defaultValue={priceDisabled ? "Market Price" : ""}
            placeholder={hydrated ? undefined : "Limit orders only"}
            error={!!fieldError("price")}
            helperText={fieldError("price")}
            slotProps={{ ...SHRINK, htmlInput: { inputMode: "decimal" } }}
          />
          {futures ? (
            <>
              <NativeSelect
                key={fields.leverage.key}
                size="small"
                margin="none"
                name="leverage"
                label="Leverage"
                defaultValue="1"
                error={fieldError("leverage")}
              >
                {LEVERAGE_OPTIONS.map((l) => (
                  <option key={l} value={l}>
                    {l}x
                  </option>
                ))}
              </NativeSelect>
              <NativeSelect
                key={fields.marginType.key}
                size="small"
                margin="none"
                name="marginType"
                label="Margin type"
                defaultValue="cross"
              >
                <option value="cross">Cross</option>
                <option value="isolated">Isolated</option>
              </NativeSelect>
            </>
          ) : null}
        </div>
        <div className={S.buttons}>
          <Button type="submit" name="side" value="buy" variant="contained" color="primary" fullWidth disabled={busy}>
            Buy / Long
          </Button>
          <Button type="submit" name="side" value="sell" variant="contained" color="error" fullWidth disabled={busy}>
            Sell / Short
          </Button>
        </div>
        <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1.5 }}>
          Market orders are immediate; limit orders fill at the price or better. Amounts: a quantity of the base asset,
          a USD notional, or a percentage of the available balance.
        </Typography>
      </fetcher.Form>
    </PanelCard>
  );
}

export type { Toast };
