// GET /api/positions: open positions (perpetual symbols), marked to the latest price.
import { type LoaderFunctionArgs, json } from "@remix-run/node";
import { D } from "#app/core/decimal.ts";
import { realizedPnl } from "#app/core/orders/net-position.ts";
import { isFuturesSymbol } from "#app/core/products.ts";
import { requireUser } from "#app/utils/auth.server.ts";
import { listOpenPositions } from "#db/queries/positions.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const positions = (await listOpenPositions(context.db)).filter((p) => isFuturesSymbol(p.symbol));
  return json(
    positions.map((p) => {
      const unrealizedPnl = p.currentPrice ? realizedPnl(p.side, p.entryPrice, p.currentPrice, p.remainingQuantity) : null;
      const notional = D(p.entryPrice).times(p.remainingQuantity);
      return {
        ...p,
        unrealizedPnl,
        roi: unrealizedPnl && notional.gt(0) ? D(unrealizedPnl).div(notional).times(100).times(p.leverage).round(2).toString() : null,
      };
    }),
  );
}
