// The Manual Trading screen as served (docs/spec/screens.md, api.md#validation, api.md#errors) and its place-order post, the
// same handling as the dashboard's: field messages, a queued trade and what became of it.
import { describe, expect, test } from "vitest";
import { cookieFrom, freshApp, queuedManualTrade, registeredAccounts } from "#tests/setup/app.ts";
import { testDialects } from "#tests/setup/db.ts";

const DATA_PARAM = "_data=routes%2F_app%2B%2Fmanual-trading";
const order = (changes: Record<string, string> = {}) => ({
  intent: "place-order",
  side: "buy",
  symbol: "ETH-PERP",
  orderType: "limit",
  amountType: "quantity",
  quantity: "0.25",
  price: "2100",
  leverage: "5",
  marginType: "isolated",
  ...changes,
});

describe.each(testDialects())("manual trading screen on %s", (dialect) => {
  const app = freshApp(dialect);
  const cookies = registeredAccounts(app, { admin: "manual_admin", user: "manual_user" });

  test("renders the Place Order card fed by balances, and the info notes", async () => {
    for (const cookie of [cookies.user, cookies.admin]) {
      const response = await app.fetch("/manual-trading", { cookie });
      expect(response.status).toBe(200);
      const html = await response.text();
      for (const text of [
        "Manual Trading",
        "Place Order",
        "USDC available",
        "Trading pair",
        "Order type",
        "Amount type",
        "Leverage",
        "Margin type",
        "Limit orders only",
        "Buy / Long",
        "Sell / Short",
        "Order Information",
        "Market orders",
        "Limit orders",
        "Cross or Isolated",
        "1x to 10x",
        "Stop loss and take profit",
        "Protection for Manual Positions",
        "0.5% from the entry price",
      ]) {
        expect(html, text).toContain(text);
      }
      expect(html).toContain('name="intent" value="place-order"');
      for (const leverage of [1, 2, 3, 5, 10])
        expect(html).toMatch(new RegExp(`<option value="${leverage}"( selected="")?>${leverage}(<!-- -->)?x</option>`));
    }
  });

  test("a plain post queues the trade and redirects back saying it is queued (no worker runs here: never 'Trade Executed')", async () => {
    const response = await app.fetch("/manual-trading", { method: "POST", cookie: cookies.user, form: order() });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/manual-trading");
    const html = await (
      await app.fetch("/manual-trading", { cookie: `${cookies.user}; ${cookieFrom(response, "tv_toast")!}` })
    ).text();
    expect(html).toContain("Order queued");
    expect(html).toContain("BUY order for ETH-PERP is queued: no worker is running, it is sent when one starts");
    expect(html).not.toContain("Trade Executed");

    const trade = await queuedManualTrade(app);
    expect(trade).toMatchObject({
      symbol: "ETH-PERP",
      side: "buy",
      order_type: "limit",
      status: "pending",
      leverage: 5,
      margin_type: "isolated",
    });
    expect(Number(trade.quantity)).toBe(0.25);
    expect(Number(trade.price)).toBe(2100);
  });

  test("with JavaScript: JSON with the toast; docs/spec/api.md#validation messages beside the fields", async () => {
    const ok = await app.fetch(`/manual-trading?${DATA_PARAM}`, {
      method: "POST",
      cookie: cookies.user,
      form: { ...order({ side: "sell" }), _js: "1" },
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      toast: { title: "Order queued" },
      tradeId: expect.any(String),
      tradeStatus: "pending",
    });

    const empty = await app.fetch("/manual-trading", {
      method: "POST",
      cookie: cookies.user,
      form: order({ quantity: "" }),
    });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("Amount is required");
    const limit = await app.fetch("/manual-trading", {
      method: "POST",
      cookie: cookies.user,
      form: order({ price: "" }),
    });
    expect(limit.status).toBe(400);
    expect(await limit.text()).toContain("Price must be a positive number greater than 0 for limit orders");
    const negative = await app.fetch("/manual-trading", {
      method: "POST",
      cookie: cookies.user,
      form: order({ quantity: "-1" }),
    });
    expect(await negative.text()).toContain("Quantity must be a positive number greater than 0");
  });

  test("a failure is 'Trade Failed' (emergency stop active)", async () => {
    await app.fetch("/dashboard", { method: "POST", cookie: cookies.admin, form: { intent: "emergency-stop" } });
    try {
      const failed = await app.fetch(`/manual-trading?${DATA_PARAM}`, {
        method: "POST",
        cookie: cookies.user,
        form: { ...order(), _js: "1" },
      });
      expect(failed.status).toBe(409);
      expect(await failed.json()).toMatchObject({
        toast: {
          title: "Trade Failed",
          variant: "destructive",
          description: expect.stringContaining("Emergency stop is active"),
        },
      });
    } finally {
      await app.fetch("/dashboard", {
        method: "POST",
        cookie: cookies.admin,
        form: { intent: "reset-emergency-stop" },
      });
    }
  });

  test("only the place-order intent: the emergency stop is not posted here", async () => {
    const response = await app.fetch("/manual-trading", {
      method: "POST",
      cookie: cookies.user,
      form: { intent: "emergency-stop" },
    });
    expect(response.status).toBe(400);
    const health = (await (await app.fetch("/api/health")).json()) as {
      systemStatus: { component: string; status: string }[];
    };
    expect(health.systemStatus.find((s) => s.component === "system")?.status).toBe("online");
  });

  test("anonymous: to the login page, nothing queued", async () => {
    const before = await app.database.db
      .selectFrom("trades")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const response = await app.fetch("/manual-trading", { method: "POST", form: order() });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/login?redirectTo=%2Fmanual-trading");
    const after = await app.database.db
      .selectFrom("trades")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
