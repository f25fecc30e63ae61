// "Send test alert" (issue 12): the alert built on Webhook Config, with TradingView's
// placeholders filled with sample values (the product's current price, a small size, now) and
// marked `"test": true`, is POSTed to this server's real public webhook endpoint, as
// TradingView would (text/plain). From there it is an ordinary signal: stored, queued, claimed
// by the worker, sized, and then traded on the simulator's test account whatever exchange is
// active (worker/tasks/test-alert.ts). Each step shows on the signal (status, reason, latency
// timeline).
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import {
  type AlertTemplateOptions,
  TICKER,
  buildAlertMessage,
  substitutePlaceholders,
} from "#app/core/alerts/template.ts";
import { D } from "#app/core/decimal.ts";
import { getPrice } from "#exchange/simulator/price-feed.ts";
import { tradingProductsFor } from "#exchange/trading-product.ts";
import { DEFAULT_SYMBOL, resolveSymbol } from "#app/core/products.ts";
import { getSignalTimeline } from "#db/queries/signal-timeline.ts";
import { getSignal } from "#db/queries/signals.ts";
import type { DB } from "#db/schema.ts";
import { getExchange } from "#exchange/factory.ts";
import { WEBHOOK_PATH } from "./webhook.server.ts";

/** The product a test alert trades: the builder's, or the default one for {{ticker}}. */
export const testSymbol = (options: AlertTemplateOptions) =>
  options.symbol === TICKER ? DEFAULT_SYMBOL : options.symbol;

/** What TradingView would put in each placeholder, for a test: a small buy, at the current price, now. */
export async function sampleValues(
  db: Kysely<DB>,
  options: AlertTemplateOptions,
  now = Date.now(),
): Promise<Record<string, string>> {
  const symbol = testSymbol(options);
  const product = resolveSymbol(symbol)!;
  const price = (await getPrice(db, symbol))?.price ?? product.referencePrice;
  // Ten of the smallest size, and at least one contract of the active exchange (sized like any signal).
  const active = await tradingProductsFor(db, getExchange(db))
    .product(symbol)
    .catch(() => null);
  const tenSmallest = D(product.baseMinSize).times(10);
  const size = (active && D(active.baseMinSize).gt(tenSmallest) ? D(active.baseMinSize) : tenSmallest).toString();
  const iso = new Date(now).toISOString();
  return {
    "strategy.order.action": "buy",
    "strategy.order.contracts": size,
    "strategy.market_position": "long",
    "strategy.market_position_size": size,
    ticker: `${product.base}USDT.P`,
    close: price,
    "strategy.order.id": `test-${randomBytes(4).toString("hex")}`,
    time: iso,
    timenow: iso,
  };
}

export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string },
) => Promise<Response>;

export interface TestAlertResult {
  /** The webhook's HTTP answer. */
  status: number;
  /** The stored signal (when the webhook stored one). */
  signalId: string | null;
  /** The webhook's answer, or why it could not be reached. */
  answer: string;
  /** The message sent (secret hidden). */
  message: string;
}

/**
 * Sends the test alert to `${endpoint}` (default: this server on 127.0.0.1:PORT, the same
 * route TradingView posts to). `fetchImpl`: tests pass the in-process app.
 */
export async function sendTestAlert(
  db: Kysely<DB>,
  options: AlertTemplateOptions,
  secret: string,
  {
    port,
    fetchImpl = fetch as unknown as FetchLike,
    now = Date.now(),
  }: { port: number; fetchImpl?: FetchLike; now?: number },
): Promise<TestAlertResult> {
  const filled = substitutePlaceholders(buildAlertMessage(options, secret), await sampleValues(db, options, now));
  const body = JSON.stringify({ ...(JSON.parse(filled) as Record<string, unknown>), test: true });
  const shown = body.replace(JSON.stringify(secret), '"•••"');
  try {
    const response = await fetchImpl(`http://127.0.0.1:${port}${WEBHOOK_PATH}`, {
      method: "POST",
      headers: { "content-type": "text/plain;charset=utf-8" },
      body,
    });
    const text = await response.text();
    let signalId: string | null = null;
    try {
      signalId = (JSON.parse(text) as { signalId?: string }).signalId ?? null;
    } catch {
      // not JSON: shown as it is
    }
    return { status: response.status, signalId, answer: text.slice(0, 500), message: shown };
  } catch (error) {
    return {
      status: 0,
      signalId: null,
      answer: `The webhook endpoint could not be reached: ${(error as Error).message}`,
      message: shown,
    };
  }
}

/** The query a page redirects to after sending: its builder choices plus the webhook's answer. */
export function testAlertSearch(
  builder: URLSearchParams,
  sent: TestAlertResult,
  extra: Record<string, string> = {},
): URLSearchParams {
  const params = new URLSearchParams(builder);
  for (const key of ["testStatus", "testSignal", "testAnswer", ...Object.keys(extra)]) params.delete(key);
  params.set("testStatus", String(sent.status));
  if (sent.signalId) params.set("testSignal", sent.signalId);
  params.set("testAnswer", sent.answer.slice(0, 300));
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  return params;
}

/** The builder's choices as posted (the address the page had), without a previous answer. */
export function postedBuilder(value: FormDataEntryValue | null): URLSearchParams {
  const builder = new URLSearchParams(String(value ?? ""));
  for (const key of ["testStatus", "testSignal", "testAnswer", "testStrategy"]) builder.delete(key);
  return builder;
}

/** What a page shows after the redirect: the webhook's answer and the signal as it is now. */
export async function testAlertFromUrl(db: Kysely<DB>, url: URL) {
  const status = url.searchParams.get("testStatus");
  if (status === null) return { sent: null, initial: null };
  const sent = {
    status: Number(status),
    signalId: url.searchParams.get("testSignal"),
    answer: url.searchParams.get("testAnswer") ?? "",
  };
  return { sent, initial: sent.signalId ? await getSignalNow(db, sent.signalId) : null };
}

/** A signal as it is now: status, reason, whether it is a test alert, and its latency timeline (GET /api/signals/{id}). */
export async function getSignalNow(db: Kysely<DB>, id: string) {
  const signal = await getSignal(db, id);
  if (!signal) return null;
  return {
    signal: {
      id: signal.id,
      status: signal.status,
      statusReason: signal.statusReason,
      symbol: signal.symbol,
      action: signal.action,
      quantity: signal.quantity,
      test: signal.payload.test === true,
    },
    timeline: await getSignalTimeline(db, signal.id),
  };
}
