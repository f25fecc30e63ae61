// The Coinbase connector end to end: the built app (web + worker processes, as `npm start`
// runs them) with live Coinbase credentials from the environment (COINBASE_SANDBOX=false),
// talking to the fake Coinbase of tests/msw/coinbase.ts over HTTP (COINBASE_API_URL), which
// verifies every signed request. A TradingView signal and a manual order each become one
// Coinbase order in whole contracts with our client order id; Trade History shows them on
// COINBASE; /api/health says "Coinbase (live trading)". Screenshots:
// test-results/e2e/coinbase-*.png. No request leaves the machine. Each test signs in on its
// own (suite.login), starts flat with no history (resetTrading) and counts only the Coinbase
// orders sent after that, so any one runs alone (`-t`) and in any order.
import { describe, expect, test } from "vitest";
import { type CoinbaseServer, startCoinbaseServer } from "../fakes/coinbase-server.ts";
import { makeCdpKey } from "../msw/coinbase.ts";
import {
  type Page,
  type PageProblems,
  type RunningApp,
  h1,
  resetTrading,
  screenshot,
  squash,
  toastsSeen,
  type Session,
  useSuite,
  waitForHydration,
} from "./utils.ts";

const ADMIN = { username: "coinbase_admin", password: "coinbase-admin-secret-1" };
const key = makeCdpKey("ec");

interface TradeJson {
  id: string;
  symbol: string;
  side: string;
  quantity: string;
  executedQuantity: string;
  executedPrice: string | null;
  status: string;
  source: string;
  exchange?: string;
  clientOrderId?: string;
  orderId: string | null;
}

let fake: CoinbaseServer | undefined;
let app: RunningApp | undefined;
let login: () => Promise<Session>;
let initialConfig: Record<string, unknown>;
// The running test's own page (set by start()).
let page: Page;
let problems: PageProblems;
/** How many order requests the fake had seen when the test started. */
let ordersBefore = 0;

useSuite(
  {
    label: "coinbase",
    port: 5131,
    admin: ADMIN,
    before: async () => {
      fake = await startCoinbaseServer({ cdpKeys: [key] });
      return {
        ...fake.env,
        COINBASE_API_KEY: key.apiKey,
        COINBASE_API_SECRET: key.apiSecret,
        COINBASE_SANDBOX: "false",
      };
    },
    after: async () => fake?.stop(),
  },
  (suite) => ({ app, login, initialConfig } = suite),
);

/** The test's own start: the admin signed in on a new context, flat on Coinbase, no history, the fresh app's rules. */
async function start(): Promise<void> {
  ({ page, problems } = await login());
  await resetTrading(page, initialConfig);
  ordersBefore = fake!.coinbase.requestsTo("/orders", "POST").length;
}

/** The orders the app sent in this test besides the resting stops it keeps for protection (issue 15). */
const marketOrLimitOrders = () =>
  fake!.coinbase
    .requestsTo("/orders", "POST")
    .slice(ordersBefore)
    .filter(
      (r) =>
        !(r.body as { order_configuration?: Record<string, unknown> })?.order_configuration?.stop_limit_stop_limit_gtc,
    );
const trades = async () => (await (await page.request.get("/api/trades?limit=50")).json()) as TradeJson[];

/** Test 2's TradingView signal: buy 0.25 ETH (2 contracts of 0.1), answered 200. */
async function signalBuyEth(): Promise<void> {
  const config = (await (await page.request.get("/api/webhook-config")).json()) as { secret: string };
  const response = await fetch(`${app!.baseUrl}/api/webhook/tradingview`, {
    method: "POST",
    headers: { "Content-Type": "text/plain" },
    body: JSON.stringify({
      secret: config.secret,
      action: "buy",
      symbol: "ETHUSDT.P",
      quantity: "0.25",
      order_type: "market",
    }),
  });
  expect(response.status).toBe(200);
}

/** Test 3's order through the API: a manual market BUY of 12 SOL (2 contracts of 5), executed. */
async function manualBuySol(): Promise<void> {
  const placed = await page.request.post("/api/trades", {
    data: { symbol: "SOL-PERP", side: "buy", orderType: "market", amountType: "quantity", quantity: "12" },
  });
  expect(placed.status(), await placed.text()).toBeLessThan(300);
}

describe("Coinbase connector (live mode against a fake Coinbase)", () => {
  test("1. registered admin; /api/health says Coinbase (live trading) once the worker has called Coinbase", async () => {
    await start();
    expect(((await (await page.request.get("/api/user")).json()) as { role: string }).role).toBe("admin");
    // The dashboard reads balances through the exchange: a signed GET /accounts.
    await expect
      .poll(
        async () => {
          const health = (await (await page.request.get("/api/health")).json()) as {
            systemStatus: { component: string; status: string; message: string }[];
          };
          return health.systemStatus.find((c) => c.component === "coinbase_api");
        },
        { timeout: 30_000, interval: 250 },
      )
      .toMatchObject({
        status: "online",
        message: expect.stringMatching(
          /^Coinbase \(live trading\): last Coinbase call GET \/api\/v3\/brokerage\/\S+ \d+ s ago worked$/,
        ),
      });
    expect(
      fake!.coinbase.state.requests.filter((r) => !r.authorized && r.path.startsWith("/market/") === false),
    ).toEqual([]);
    await screenshot(page, "coinbase-01-dashboard");
  });

  test("2. a TradingView signal becomes one Coinbase order: 0.25 ETH -> 2 contracts, client order id pd-<uuid>, booked as 0.2 ETH", async () => {
    await start();
    await signalBuyEth();
    await expect
      .poll(
        async () => (await trades()).map((t) => `${t.symbol} ${t.side} ${t.source} ${t.status} ${t.executedQuantity}`),
        { timeout: 30_000, interval: 250 },
      )
      .toEqual(["ETH-PERP buy signal executed 0.2"]);
    const orders = marketOrLimitOrders();
    expect(orders).toHaveLength(1);
    expect(orders[0]!.body).toMatchObject({
      product_id: "ETP-20DEC30-CDE",
      side: "BUY",
      client_order_id: expect.stringMatching(/^pd-[0-9a-f-]{36}$/),
      order_configuration: { market_market_ioc: { base_size: "2" } },
    });
    const [trade] = await trades();
    expect(Number(trade!.executedPrice)).toBe(3400);
    expect(trade!.orderId).toBe(
      fake!.coinbase.state.orders.find(
        (o) => o.client_order_id === (orders[0]!.body as { client_order_id: string }).client_order_id,
      )?.order_id,
    );
  });

  test("3. a manual market order from the Manual Trading screen goes to Coinbase too ('Trade Executed')", async () => {
    await start();
    // Test 2's ETH position, so two positions keep their stops on Coinbase.
    await signalBuyEth();
    await expect
      .poll(async () => (await trades()).map((t) => t.status), { timeout: 30_000, interval: 250 })
      .toEqual(["executed"]);
    await page.goto("/manual-trading");
    await h1(page, "Manual Trading").waitFor();
    await waitForHydration(page, problems);
    const form = page.getByTestId("manual-trade-form");
    await expect
      .poll(async () => squash(await form.innerText()), { timeout: 15_000 })
      .toMatch(/Coinbase \(live trading\)/);
    const symbol = "SOL-PERP";
    await form.getByLabel("Trading pair", { exact: true }).selectOption(symbol);
    await form.getByLabel("Quantity", { exact: true }).fill("12"); // 2 contracts of 5 SOL
    const since = Date.now();
    await form.getByRole("button", { name: "Buy / Long", exact: true }).click();
    await expect
      .poll(async () => (await toastsSeen(page)).filter((t) => t.at >= since).map((t) => t.text), { timeout: 20_000 })
      .toContain(`Trade Executed BUY order for ${symbol} has been placed successfully`);
    await expect
      .poll(async () => (await trades()).filter((t) => t.source === "manual").map((t) => `${t.symbol} ${t.status}`), {
        timeout: 30_000,
        interval: 250,
      })
      .toEqual([`${symbol} executed`]);
    const sent = marketOrLimitOrders();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.body).toMatchObject({
      side: "BUY",
      product_id: "SLP-20DEC30-CDE",
      order_configuration: { market_market_ioc: { base_size: "2" } },
    });
    // Issue 15: the worker keeps each position's stop resting on Coinbase (a sell stop-limit for its contracts).
    await expect
      .poll(
        () =>
          fake!.coinbase.state.orders
            .filter((o) => o.status === "OPEN" && o.order_configuration.stop_limit_stop_limit_gtc)
            .map((o) => `${o.product_id} ${o.side}`)
            .sort(),
        { timeout: 15_000, interval: 250 },
      )
      .toEqual(["ETP-20DEC30-CDE SELL", "SLP-20DEC30-CDE SELL"]);
    await screenshot(page, "coinbase-02-manual-trading");
  });

  test("4. Trade History shows both trades on COINBASE", async () => {
    await start();
    // Tests 2 and 3's orders: the ETH signal and a manual SOL buy.
    await signalBuyEth();
    await manualBuySol();
    await expect
      .poll(async () => (await trades()).map((t) => t.status), { timeout: 30_000, interval: 250 })
      .toEqual(["executed", "executed"]);
    await page.goto("/trade-history");
    await h1(page, "Trade History").waitFor();
    await waitForHydration(page, problems);
    const rows = page.getByTestId("trade-row");
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    await rows.first().click();
    const details = page.getByTestId("trade-details");
    await details.waitFor();
    expect(squash(await details.getByTestId("detail-exchange").innerText())).toBe("Exchange COINBASE");
    await screenshot(page, "coinbase-03-trade-history");
    expect(problems.errors).toEqual([]);
  });
});
